import { useEffect } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { navSelectors, useNavStore } from '../../app/store/navStore';
import { EmptyState } from '../../components/EmptyState';
import { reposSelectors, useReposStore } from '../repos/store';
import { CallDetail } from './CallDetail';
import { LOGS_PAGE_SIZE, useLogsStore } from './store';

/** Logs: every model call, filtered by run, stage, model or errors; a call opens whole. */
export function LogsPage() {
  const { repoId, scope, calls, run, total, offset, filters, selected, isLoaded, error } = useLogsStore(
    useShallow((s) => ({ repoId: s.repoId, scope: s.scope, calls: s.calls, run: s.run, total: s.total, offset: s.offset, filters: s.filters, selected: s.selected, isLoaded: s.isLoaded, error: s.error })),
  );
  const { load, setFilters, open, showRun, showLog, setScope } = useLogsStore(
    useShallow((s) => ({ load: s.load, setFilters: s.setFilters, open: s.open, showRun: s.showRun, showLog: s.showLog, setScope: s.setScope })),
  );
  // The repository is the app's current one (the picker at the top); this page has no picker of its own.
  const appRepoId = useNavStore(navSelectors.repoId);
  const appRepo = useReposStore(reposSelectors.byId(appRepoId));
  useEffect(() => {
    const wanted = useLogsStore.getState().scope === 'repository' ? appRepoId : null;
    if (useLogsStore.getState().repoId !== wanted) void showLog(wanted);
    else void load();
  }, [load, showLog, appRepoId]);
  const hasFilter = Boolean(filters.runId || filters.stage || filters.model || filters.errorsOnly);
  return (
    <div className="page">
      <header className="page-header">
        <h1>Logs</h1>
        <span className="muted">{total} model calls</span>
        <span className="spacer" />
        <button type="button" onClick={() => void load()}>
          Refresh
        </button>
      </header>
      <form className="row" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        {/* A repository's runs (retrieval, chat, plans) log to that repository; the rest (model tests, pulls) to the app-wide log. */}
        <select aria-label="Log" value={scope === 'repository' && repoId ? 'repository' : 'app'} onChange={(e) => void setScope(e.target.value as 'repository' | 'app', appRepoId)}>
          {appRepoId ? <option value="repository">{appRepo?.name ?? 'current repository'}</option> : null}
          <option value="app">app-wide (model tests, downloads)</option>
        </select>
        <input aria-label="Run" placeholder="run id" value={filters.runId} onChange={(e) => void setFilters({ runId: e.target.value.trim() })} />
        <input aria-label="Stage" placeholder="stage" value={filters.stage} onChange={(e) => void setFilters({ stage: e.target.value.trim() })} />
        <input aria-label="Model" placeholder="model" value={filters.model} onChange={(e) => void setFilters({ model: e.target.value.trim() })} />
        <label className="row">
          <input type="checkbox" checked={filters.errorsOnly} onChange={(e) => void setFilters({ errorsOnly: e.target.checked })} /> errors only
        </label>
      </form>
      {error ? <p className="error-text">{error.message}</p> : null}
      {run ? (
        <p className="muted" data-testid="log-run">
          Run <span className="mono">{run.runId}</span> · {run.title ?? run.kind} · {run.status} · started {new Date(run.startedAt).toLocaleString()}
          {run.finishedAt ? `, ended ${new Date(run.finishedAt).toLocaleTimeString()}` : ''}
          {run.error ? ` · ${run.error.code}: ${run.error.message}` : ''}
        </p>
      ) : null}
      {selected ? <CallDetail call={selected} /> : null}
      {isLoaded && calls.length === 0 ? (
        <EmptyState title={hasFilter ? 'No calls match' : 'No model calls yet'}>
          <p>{hasFilter ? 'Clear a filter to see more.' : 'Every model call is recorded here with its prompt, response, tokens and latency. Try "Test" on the Models page.'}</p>
        </EmptyState>
      ) : null}
      {calls.length > 0 ? (
        <table className="grid" aria-label="Model calls">
          <thead>
            <tr>
              <th>Time</th>
              <th>Run</th>
              <th>Stage</th>
              <th>Model</th>
              <th>Tokens in/out</th>
              <th>Latency</th>
              <th>Result</th>
            </tr>
          </thead>
          <tbody>
            {calls.map((c) => (
              <tr key={c.id} className={selected?.id === c.id ? 'selected clickable' : 'clickable'} onClick={() => void open(c.id)} data-testid={`call-${c.id}`}>
                <td>{new Date(c.createdAt).toLocaleTimeString()}</td>
                <td>
                  {c.runId ? (
                    <button
                      type="button"
                      className="link"
                      onClick={(e) => {
                        e.stopPropagation();
                        void showRun(c.runId as string);
                      }}
                    >
                      {c.runId}
                    </button>
                  ) : (
                    <span className="muted">–</span>
                  )}
                </td>
                <td>{c.stage ?? ''}</td>
                <td className="mono">{c.model}</td>
                <td>
                  {c.promptTokens ?? '–'} / {c.completionTokens ?? '–'}
                </td>
                <td>{c.latencyMs === null ? '–' : `${c.latencyMs} ms`}</td>
                <td className={c.errorCode ? 'error-text' : ''}>{c.errorCode ? `${c.errorCode}: ${c.preview}` : c.preview.slice(0, 80)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {total > LOGS_PAGE_SIZE ? (
        <div className="row">
          <button type="button" disabled={offset === 0} onClick={() => void load(Math.max(0, offset - LOGS_PAGE_SIZE))}>
            Newer
          </button>
          <span className="muted">
            {offset + 1}–{Math.min(total, offset + LOGS_PAGE_SIZE)} of {total}
          </span>
          <button type="button" disabled={offset + LOGS_PAGE_SIZE >= total} onClick={() => void load(offset + LOGS_PAGE_SIZE)}>
            Older
          </button>
        </div>
      ) : null}
    </div>
  );
}
