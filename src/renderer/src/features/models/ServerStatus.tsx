import { useEffect } from 'react';
import type { ModelServerStatus } from '../../../../shared/contract';
import { modelsSelectors, useModelsStore } from './store';

/** Short text of the server state for the status bar. */
export function serverLabel(s: ModelServerStatus | null): string {
  if (!s) return 'Model server: checking…';
  const name = s.provider === 'ollama' ? 'Ollama' : 'Model server';
  switch (s.state) {
    case 'running':
      return `${name} ${s.version ?? ''}${s.startedByUs ? ' (started by the app)' : ''}`.trim();
    case 'starting':
      return `${name}: starting…`;
    case 'not_installed':
      return 'Ollama: not installed';
    case 'not_running':
      return 'Ollama: not running';
    case 'config_invalid':
      return 'Model server: config error';
    default:
      return `${name}: unreachable`;
  }
}

/**
 * How often the status bar checks the model server. The engine sends `models/serverStatus` only
 * when something checks the server (it does not watch it), so a server stopped or started outside
 * the app showed only at the next check: every 20 s, the dot lagged that long. A check is one
 * loopback request (the binary's version is cached by the engine).
 */
export const STATUS_CHECK_MS = 2_000;

/** The model server in the status bar; also wires the models store to pushed events and re-checks every 2 s while the window is shown, and when it comes back. */
export function ModelServerStatusItem() {
  const status = useModelsStore(modelsSelectors.status);
  useEffect(() => {
    const store = useModelsStore.getState();
    const off = store.connect();
    let inFlight = false;
    // One check at a time (a far server can take its timeout to answer); none while the window is hidden.
    const check = () => {
      if (inFlight || document.visibilityState === 'hidden') return;
      inFlight = true;
      void useModelsStore
        .getState()
        .checkStatus()
        .finally(() => (inFlight = false));
    };
    check();
    const timer = setInterval(check, STATUS_CHECK_MS);
    document.addEventListener('visibilitychange', check);
    window.addEventListener('focus', check);
    return () => {
      off();
      clearInterval(timer);
      document.removeEventListener('visibilitychange', check);
      window.removeEventListener('focus', check);
    };
  }, []);
  const tone = !status ? 'server-warn' : status.state === 'running' ? 'server-ok' : status.state === 'starting' ? 'server-warn' : 'server-down';
  return (
    <span className={`status-item ${tone}`} data-testid="model-server-status" title={status?.hint || status?.address || ''}>
      {serverLabel(status)}
    </span>
  );
}
