import { useEffect } from 'react';
import { EmptyState } from '../../components/EmptyState';
import { ReportView } from './ReportView';
import { StartEvalForm } from './StartEvalForm';
import { evalSelectors, useEvalRun, useEvalStore } from './store';

const pct = (n: number | undefined) => (n === undefined ? '-' : n.toFixed(2));

/** Evaluation: stored reports of `cra eval` / Start, each with its recall chart, table and misses. */
export function EvalPage() {
  const reports = useEvalStore(evalSelectors.reports);
  const isLoaded = useEvalStore(evalSelectors.isLoaded);
  const report = useEvalStore(evalSelectors.report);
  const selectedId = useEvalStore(evalSelectors.selectedId);
  const run = useEvalRun();
  const loadError = useEvalStore(evalSelectors.error('load'));
  const openError = useEvalStore(evalSelectors.error('open'));
  const open = useEvalStore((s) => s.open);

  useEffect(() => {
    void useEvalStore.getState().load();
  }, []);

  // Mount the start form only once the list is known, so a path typed meanwhile is never lost
  // when the page switches between its empty state and the report list.
  if (!isLoaded && !loadError) {
    return (
      <div className="page eval-page">
        <p className="muted">Loading reports…</p>
      </div>
    );
  }

  if (reports.length === 0 && !run && !loadError) {
    return (
      <EmptyState title="Evaluation" action={<StartEvalForm />}>
        <p>
          Measure how well search finds the code a task needs: past commits become tasks (the message) with known answers (the files they
          changed). The app's search is compared with plain keyword search over whole files.
        </p>
        <p>
          Give a repository path above and press Start: it replays past commits as tasks and measures how often search finds the files they changed.
        </p>
      </EmptyState>
    );
  }

  return (
    <div className="page eval-page">
      <header className="page-header">
        <h1>Evaluation</h1>
        <span className="muted">{reports.length === 1 ? '1 report' : `${reports.length} reports`}</span>
      </header>
      <StartEvalForm />
      {loadError ? <p className="error-text" role="alert">Could not list reports: {loadError.message}</p> : null}
      {reports.length > 0 ? (
        <table className="grid compact eval-list" aria-label="Reports">
          <thead>
            <tr>
              <th>When</th>
              <th>Repository</th>
              <th className="num">Tasks</th>
              <th className="num" title="Share of tasks whose changed files the app's search found among its first 5 results (recall@5)">
                Found in top 5: search
              </th>
              <th className="num" title="The same for plain keyword search, the baseline (recall@5)">
                Found in top 5: keyword
              </th>
            </tr>
          </thead>
          <tbody>
            {reports.map((r) => (
              <tr key={r.id} className={r.id === selectedId ? 'selected eval-row' : 'eval-row'} onClick={() => void open(r.id)}>
                <td>{new Date(r.createdAt).toLocaleString()}</td>
                <td className="mono">{r.repoPath}</td>
                <td className="num">{r.taskCount}</td>
                <td className="num">{pct((r.summary.search ?? r.summary['search-hybrid'] ?? r.summary['search-semantic'])?.recallAt[5])}</td>
                <td className="num">{pct(r.summary.bm25?.recallAt[5])}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {openError ? <p className="error-text" role="alert">{openError.message}</p> : null}
      {report && report.id === selectedId ? <ReportView report={report} /> : null}
    </div>
  );
}
