import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError, type EventKey } from '../../../shared/contract';
import { setClientForTests, type Client } from '../lib/client';
import { App, connectStores } from './App';
import { useNavStore } from './store/navStore';

function fakeClient(): Client {
  return {
    call: (async (method: string) => {
      if (method === 'app/info') return { name: 'Clean Room', version: '9.9.9', host: 'test', dataDir: '/tmp/x', platform: 'linux', nodeVersion: '20', canPickFolder: false, launcher: { command: 'node', args: ['/opt/cra/bin/cra.js'] } };
      if (method === 'run/list') return [];
      throw new AppError('OLLAMA_UNREACHABLE', 'no server in this test');
    }) as Client['call'],
    subscribe: (_event: EventKey) => () => undefined,
  };
}

beforeEach(() => {
  window.matchMedia ??= ((query: string) => ({ matches: false, media: query, addEventListener() {}, removeEventListener() {} })) as never;
  setClientForTests(fakeClient());
  useNavStore.setState({ page: 'repositories' });
});
afterEach(cleanup);

describe('the workbench shell', () => {
  it('shows the engine state and version from the client', async () => {
    connectStores();
    render(<App />);
    expect(await screen.findByText(/Engine: ok/)).toBeTruthy();
    expect(await screen.findByText(/v9\.9\.9/)).toBeTruthy();
  });

  it('switches pages from the activity bar and with G then a letter, leaving Ctrl+digit to the browser', async () => {
    render(<App />);
    fireEvent.click(screen.getByRole('button', { name: 'Chat' }));
    expect(screen.getByRole('main').getAttribute('aria-label')).toBe('Chat');
    act(() => {
      fireEvent.keyDown(window, { key: '7', ctrlKey: true });
    });
    expect(screen.getByRole('main').getAttribute('aria-label')).toBe('Chat');
    act(() => {
      fireEvent.keyDown(window, { key: 'g' });
      fireEvent.keyDown(window, { key: ',' });
    });
    expect(screen.getByRole('main').getAttribute('aria-label')).toBe('Settings');
    expect(screen.getByRole('button', { name: 'Settings' }).getAttribute('aria-current')).toBe('page');
  });
});
