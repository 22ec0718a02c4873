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

/** The model server in the status bar; also wires the models store to pushed events and re-checks every 20 s. */
export function ModelServerStatusItem() {
  const status = useModelsStore(modelsSelectors.status);
  useEffect(() => {
    const store = useModelsStore.getState();
    const off = store.connect();
    void store.checkStatus();
    const timer = setInterval(() => void useModelsStore.getState().checkStatus(), 20_000);
    return () => {
      off();
      clearInterval(timer);
    };
  }, []);
  const tone = !status ? 'server-warn' : status.state === 'running' ? 'server-ok' : status.state === 'starting' ? 'server-warn' : 'server-down';
  return (
    <span className={`status-item ${tone}`} data-testid="model-server-status" title={status?.hint || status?.address || ''}>
      {serverLabel(status)}
    </span>
  );
}
