import type { ComponentType } from 'react';
import { EvalPage } from '../features/eval/EvalPage';
import { RetrievalPage } from '../features/retrieval/RetrievalPage';
import { TrainingPage } from '../features/training/TrainingPage';
import { LogsPage } from '../features/logs/LogsPage';
import { ModelsPage } from '../features/models/ModelsPage';
import { ChatPage } from '../features/chat/ChatPage';
import { PlansPage } from '../features/plans/PlansPage';
import { ReposPage } from '../features/repos/ReposPage';
import { SearchPage } from '../features/search/SearchPage';
import { SettingsPage } from '../features/settings/SettingsPage';
import type { PageId } from './store/navStore';

/** Every page of the activity bar: its label and component. */
export const PAGES: Record<PageId, { label: string; component: ComponentType }> = {
  repositories: { label: 'Repositories', component: ReposPage },
  search: { label: 'Search', component: SearchPage },
  chat: { label: 'Chat', component: ChatPage },
  plans: { label: 'Plans & Runs', component: PlansPage },
  eval: { label: 'Evaluation', component: EvalPage },
  models: { label: 'Models', component: ModelsPage },
  logs: { label: 'Logs', component: LogsPage },
  settings: { label: 'Settings', component: SettingsPage },
  retrieval: { label: 'Context inspector', component: RetrievalPage },
  training: { label: 'Data', component: TrainingPage },
};
