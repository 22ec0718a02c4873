import { useEffect } from 'react';
import { runsSelectors, useRunsStore } from '../runs/store';
import { BootstrapForm } from './BootstrapForm';
import { BalanceBar, LatencyChart, StageSeriesChart } from './Charts';
import { DatasetView } from './DatasetView';
import { dataSelectors, useTrainingStore } from './store';

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** Data: training datasets (bootstrap, curated) with their balance, samples and export, and the log analysis as charts. */
export function TrainingPage() {
  const datasets = useTrainingStore(dataSelectors.datasets);
  const log = useTrainingStore(dataSelectors.log);
  const isLoaded = useTrainingStore(dataSelectors.isLoaded);
  const selectedId = useTrainingStore(dataSelectors.selectedId);
  const loadError = useTrainingStore(dataSelectors.error('load'));
  const runId = useTrainingStore(dataSelectors.runId);
  const runStatus = useRunsStore((s) => runsSelectors.byId(runId)(s)?.status ?? null);
  const select = useTrainingStore((s) => s.select);

  useEffect(() => {
    void useTrainingStore.getState().load();
  }, []);
  // A bootstrap that ends while the page is open: its dataset is listed at once.
  useEffect(() => {
    if (runStatus && runStatus !== 'running') void useTrainingStore.getState().load();
  }, [runStatus]);

  const stages = [...new Set(datasets.flatMap((d) => Object.keys(d.counts)))];
  return (
    <div className="page data-page">
      <header className="page-header">
        <h1>Data</h1>
        <span className="muted">{datasets.length === 1 ? '1 dataset' : `${datasets.length} datasets`}</span>
      </header>
      <BootstrapForm />
      {loadError ? <p className="error-text" role="alert">Could not read the training data: {loadError.message}</p> : null}
      {!isLoaded ? <p className="muted">Loading…</p> : null}
      <section aria-label="Datasets" className="data-section">
        <h2>
          Datasets{' '}
          {datasets.length > 0 ? (
            <span className="muted data-legend">
              per stage: <span className="swatch-inline balance-yes-bg" /> yes / <span className="swatch-inline balance-no-bg" /> no
            </span>
          ) : null}
        </h2>
        {isLoaded && datasets.length === 0 ? (
          <p className="muted">
            No datasets yet. Give a repository above to make training pairs from its history. Curating logged model calls into a dataset is
            done in a terminal for now (<code>cra curate-data</code>).
          </p>
        ) : null}
        {datasets.length > 0 ? (
          <table className="grid compact data-list" aria-label="Datasets">
            <thead>
              <tr>
                <th>Dataset</th>
                <th>Kind</th>
                <th>From</th>
                {stages.map((s) => (
                  <th key={s}>{s}</th>
                ))}
                <th>Updated</th>
              </tr>
            </thead>
            <tbody>
              {datasets.map((d) => (
                <tr key={d.id} className={d.id === selectedId ? 'selected data-row' : 'data-row'} onClick={() => void select(d.id)} data-testid="dataset-row">
                  <td className="mono">{d.id}</td>
                  <td>{d.kind}</td>
                  <td className="mono data-from">{d.kind === 'bootstrap' ? `${d.repoPath ?? ''} · ${d.commits ?? 0} commits` : d.plan}</td>
                  {stages.map((s) => (
                    <td key={s}>{d.counts[s] ? <BalanceBar counts={d.counts[s]} stage={s} /> : <span className="muted">–</span>}</td>
                  ))}
                  <td>{new Date(d.updatedAt).toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </section>
      {selectedId ? <DatasetView /> : null}
      {log ? (
        <section aria-label="Log analysis" className="data-section">
          <h2>Log analysis</h2>
          <p className="muted">
            {log.sources === 0 ? 'No raw database yet: nothing has been logged.' : `${log.sources} raw database${log.sources === 1 ? '' : 's'} read; runs: `}
            {log.runs.map((r) => `${r.mode} ${r.status} ${r.count}`).join(' · ')}
          </p>
          <div className="data-charts">
            <StageSeriesChart log={log} metric="calls" title="Calls per stage over time" />
            <StageSeriesChart log={log} metric="denyRate" title="Default-deny rate per stage over time" />
            <LatencyChart latency={log.latency} />
          </div>
          {log.stages.length > 0 ? (
            <table className="grid compact data-stages" aria-label="Stages">
              <thead>
                <tr>
                  <th>Stage</th>
                  <th className="num">Calls</th>
                  <th className="num">Errors</th>
                  <th className="num">Mean latency</th>
                  <th className="num">Judged</th>
                  <th className="num">Yes</th>
                  <th className="num">Default-deny</th>
                </tr>
              </thead>
              <tbody>
                {log.stages.map((s) => (
                  <tr key={s.stage}>
                    <td className="mono">{s.stage}</td>
                    <td className="num">{s.calls}</td>
                    <td className="num">{pct(s.errorRate)}</td>
                    <td className="num">{s.meanLatencyMs === null ? '–' : `${s.meanLatencyMs} ms`}</td>
                    <td className="num">{s.judged}</td>
                    <td className="num">{s.judged ? pct(s.yesRate) : '–'}</td>
                    <td className="num">{s.judged ? pct(s.defaultDenyRate) : '–'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </section>
      ) : null}
    </div>
  );
}
