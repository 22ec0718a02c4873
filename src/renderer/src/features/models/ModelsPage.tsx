import { useEffect } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { LinkedText } from '../../components/LinkedText';
import { AssignmentTable } from './AssignmentTable';
import { InstalledTable } from './InstalledTable';
import { RecommendedList } from './RecommendedList';
import { CheckButton } from './CheckButton';
import { SetupModels } from './SetupModels';
import { serverLabel } from './ServerStatus';
import { modelsSelectors, useModelsStore } from './store';

const PANEL_TITLE: Record<string, string> = {
  OLLAMA_NOT_INSTALLED: 'Ollama is not installed',
  CONFIG_INVALID: 'The config file has an error',
  UNSUPPORTED: 'Model downloads need Ollama',
};

/** Why Pull is off, in words a person can act on. */
function pullBlockedReason(code: string): string {
  if (code === 'OLLAMA_NOT_INSTALLED') return 'install Ollama first (see above).';
  if (code === 'CONFIG_INVALID') return 'fix the config file first (see above).';
  if (code === 'UNSUPPORTED') return 'downloads need Ollama; this config uses another provider.';
  return 'no model server answers (see above); start it, then press Retry.';
}

/** Models: the server's health, installed models, recommended pulls and the stage assignments. */
export function ModelsPage() {
  const { status, errors, isLoaded } = useModelsStore(useShallow((s) => ({ status: modelsSelectors.status(s), errors: modelsSelectors.errors(s), isLoaded: modelsSelectors.isLoaded(s) })));
  const refresh = useModelsStore((s) => s.refresh);
  const startServer = useModelsStore((s) => s.startServer);
  useEffect(() => {
    void refresh();
  }, [refresh]);
  const listError = errors.list;
  const canStart = status?.state === 'not_running' && Boolean(status.binaryPath);
  const pullBlockedBy = !isLoaded ? 'checking the model server…' : listError ? pullBlockedReason(listError.code) : null;
  return (
    <div className="page">
      <header className="page-header">
        <h1>Models</h1>
        <span className="muted">{serverLabel(status)}</span>
        {status?.address && status.provider !== 'builtin' ? <code className="muted">{status.address}</code> : null}
        <span className="spacer" />
        {canStart ? (
          <button type="button" className="primary" onClick={() => void startServer()}>
            Start Ollama
          </button>
        ) : null}
        <button type="button" onClick={() => void refresh()}>
          Retry
        </button>
      </header>
      <SetupModels />
      {listError ? (
        <div className="panel" role="alert" data-testid="models-unavailable">
          <strong>{PANEL_TITLE[listError.code] ?? 'No model server'}</strong>
          <p>
            <LinkedText text={listError.message} />
          </p>
          <p className="muted">Search and everything else that needs no model keeps working.</p>
        </div>
      ) : null}
      <section className="panel" aria-label="Installed">
        <h2 className="section-title">Installed</h2>
        {isLoaded && !listError ? <InstalledTable /> : !isLoaded ? <p className="muted">Loading…</p> : <p className="muted">Installed models appear here once the server answers.</p>}
        {errors.delete ? <p className="error-text">{errors.delete.message}</p> : null}
      </section>
      {status?.provider === 'builtin' ? null : (
        <section className="panel" aria-label="Recommended">
          <h2 className="section-title">Recommended for the pipeline</h2>
          <RecommendedList pullBlockedBy={pullBlockedBy} />
        </section>
      )}
      <section className="panel" aria-label="Assignments">
        <div className="row">
          <h2 className="section-title">Model per stage</h2>
          <span className="spacer" />
          <CheckButton />
        </div>
        <AssignmentTable />
      </section>
    </div>
  );
}
