import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ModelServerStatus } from '../../../../shared/contract';
import { setClientForTests, type Client } from '../../lib/client';
import { ModelServerStatusItem } from './ServerStatus';
import { useModelsStore } from './store';

const running: ModelServerStatus = { state: 'running', reachable: true, provider: 'ollama', version: '0.9.0', startedByUs: false, address: 'http://127.0.0.1:11434', hint: '', checkedAt: 't' };
const stopped: ModelServerStatus = { ...running, state: 'not_running', reachable: false, hint: 'Ollama is installed but not running' };
let server: ModelServerStatus;
let checks: number;

beforeEach(() => {
  vi.useFakeTimers();
  server = running;
  checks = 0;
  useModelsStore.setState({ status: null });
  setClientForTests({
    call: (async (method: string) => {
      if (method !== 'models/status') throw new Error(`not in this test: ${method}`);
      checks++;
      return server;
    }) as Client['call'],
    subscribe: () => () => {},
  });
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('the model server status dot', () => {
  it('shows a server stopped outside the app within 2 s, and one started again as soon', async () => {
    render(<ModelServerStatusItem />);
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(screen.getByTestId('model-server-status').textContent).toBe('Ollama 0.9.0');
    server = stopped;
    await act(() => vi.advanceTimersByTimeAsync(2_000));
    expect(screen.getByTestId('model-server-status').textContent).toBe('Ollama: not running');
    expect(screen.getByTestId('model-server-status').className).toContain('server-down');
    server = running;
    await act(() => vi.advanceTimersByTimeAsync(2_000));
    expect(screen.getByTestId('model-server-status').className).toContain('server-ok');
  });

  it('checks again when the window comes back into focus', async () => {
    render(<ModelServerStatusItem />);
    await act(() => vi.advanceTimersByTimeAsync(0));
    const before = checks;
    await act(async () => {
      window.dispatchEvent(new Event('focus'));
      await vi.advanceTimersByTimeAsync(0);
    });
    expect(checks).toBe(before + 1);
  });
});
