import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App, connectStores } from './app/App';
import { connectHistory } from './app/history';
import './styles.css';

connectStores();
connectHistory();
const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
