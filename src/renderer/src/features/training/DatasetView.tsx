import { useState } from 'react';
import { BalanceBar } from './Charts';
import { dataSelectors, SAMPLE_PAGE, useTrainingStore } from './store';

/** The selected dataset: counts per stage, a sample viewer (stage, label, paging) and export. */
export function DatasetView() {
  const id = useTrainingStore(dataSelectors.selectedId);
  const dataset = useTrainingStore((s) => s.datasets.find((d) => d.id === id) ?? null);
  const query = useTrainingStore(dataSelectors.query);
  const samples = useTrainingStore(dataSelectors.samples);
  const exported = useTrainingStore(dataSelectors.exported);
  const samplesError = useTrainingStore(dataSelectors.error('samples'));
  const exportError = useTrainingStore(dataSelectors.error('export'));
  const setQuery = useTrainingStore((s) => s.setQuery);
  const exportTo = useTrainingStore((s) => s.exportTo);
  const [dest, setDest] = useState('');
  if (!dataset) return null;
  const stages = Object.keys(dataset.files);
  const total = samples?.total ?? 0;
  const counts = dataset.counts[query.stage];
  // A stage of free answers (execute) has no yes / no to filter by.
  const judged = counts ? counts.yes + counts.no : 0;
  return (
    <section className="data-section data-dataset" aria-label={`Dataset ${dataset.id}`}>
      <h2>
        <span className="mono">{dataset.id}</span> <span className="muted">{dataset.dir}</span>
      </h2>
      <div className="data-stage-tabs" role="tablist" aria-label="Stages">
        {stages.map((s) => (
          <button key={s} type="button" role="tab" aria-selected={s === query.stage} className={s === query.stage ? 'active' : ''} onClick={() => void setQuery({ stage: s })}>
            {s} <BalanceBar counts={dataset.counts[s] ?? { examples: 0, yes: 0, no: 0 }} stage={s} />
            {dataset.test?.[s] !== undefined ? <span className="muted"> · test {dataset.test[s]}</span> : null}
          </button>
        ))}
      </div>
      <div className="row">
        <label className="muted">
          label{' '}
          <select aria-label="Label" disabled={judged === 0} value={query.label ?? ''} onChange={(e) => void setQuery({ label: e.target.value === 'yes' || e.target.value === 'no' ? e.target.value : null })}>
            <option value="">all</option>
            <option value="yes">yes</option>
            <option value="no">no</option>
          </select>
        </label>
        <span className="grow muted" data-testid="sample-range">
          {total === 0 ? 'no examples' : `${query.offset + 1}–${Math.min(total, query.offset + SAMPLE_PAGE)} of ${total}`}
        </span>
        <button type="button" disabled={query.offset === 0} onClick={() => void setQuery({ offset: Math.max(0, query.offset - SAMPLE_PAGE) })}>
          Previous
        </button>
        <button type="button" disabled={query.offset + SAMPLE_PAGE >= total} onClick={() => void setQuery({ offset: query.offset + SAMPLE_PAGE })}>
          Next
        </button>
      </div>
      {samplesError ? <p className="error-text" role="alert">{samplesError.message}</p> : null}
      <ol className="data-samples" aria-label="Samples">
        {(samples?.samples ?? []).map((x) => (
          <li key={x.line} className="data-sample" data-testid="sample">
            <div className="muted data-sample-head">
              line {x.line}
              {typeof x.meta.subject === 'string' ? <span className="mono"> · {x.meta.subject}</span> : null}
              {typeof x.meta.reason === 'string' ? <span className="chip">{x.meta.reason}</span> : null}
            </div>
            {x.messages.map((m, i) => (
              <details key={i} className={`data-message role-${m.role}`} open={m.role !== 'system'}>
                <summary>{m.role}</summary>
                <pre>{m.content.length > 4000 ? `${m.content.slice(0, 4000)}\n… (${m.content.length - 4000} more characters)` : m.content}</pre>
              </details>
            ))}
          </li>
        ))}
      </ol>
      <form
        className="row data-export"
        aria-label="Export dataset"
        onSubmit={(e) => {
          e.preventDefault();
          if (dest.trim()) void exportTo(dest);
        }}
      >
        <input className="grow mono" aria-label="Export folder" placeholder="/path/to/a/new/folder" value={dest} spellCheck={false} onChange={(e) => setDest(e.target.value)} />
        <button type="submit" disabled={!dest.trim()}>
          Export
        </button>
      </form>
      {exportError ? <p className="error-text" role="alert">{exportError.message}</p> : null}
      {exported ? (
        <p className="muted" role="status">
          Exported {exported.files.length} files to <span className="mono">{exported.dir}</span>
        </p>
      ) : null}
    </section>
  );
}
