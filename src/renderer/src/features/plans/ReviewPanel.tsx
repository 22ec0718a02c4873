import { useCallback, useEffect, useMemo, useState } from 'react';
import type { ReviewView } from '../../../../shared/contract';
import { DiffView, useWideEnough } from '../../components/DiffView';
import { client } from '../../lib/client';
import { toOpError, type OpError } from '../../lib/errors';

type Verdict = 'accept' | 'reject';

/** A binary file's size as shown (absent: none). */
const sizeText = (n: number | null) => (n === null ? 'none' : `${n.toLocaleString()} bytes`);

/** The verdicts a review opens with: all accepted; after an apply, what it wrote and nothing else. */
export function initialVerdicts(view: ReviewView): Record<string, Verdict> {
  const applied = new Set(view.applied);
  const hunks = view.files.flatMap((f) => f.hunks.map((h) => h.id));
  return Object.fromEntries(hunks.map((id) => [id, applied.size === 0 || applied.has(id) ? 'accept' : 'reject']));
}

/**
 * Diff review of a run: the cumulative change per file and hunk (diff2html, side by side when the
 * panel is wide enough, else line by line), each hunk accepted or rejected, a summary of what Apply
 * will write, then Apply — the only way a run's change reaches the working tree — and Undo of the
 * last apply. Hunks an apply wrote are shown as applied (the engine says which); Apply then writes
 * only hunks accepted since. Each step's own diff is shown read-only beside.
 */
export function ReviewPanel(props: { repoId: string; runId: string }) {
  const { repoId, runId } = props;
  const [view, setView] = useState<ReviewView | null>(null);
  const [verdicts, setVerdicts] = useState<Record<string, Verdict>>({});
  /** The user's choice of layout; null: side by side when the panel is wide enough. */
  const [sideBySideChoice, setSideBySide] = useState<boolean | null>(null);
  const [panel, setPanel] = useState<HTMLElement | null>(null);
  const wide = useWideEnough(panel);
  const sideBySide = sideBySideChoice ?? wide;
  const [tab, setTab] = useState<'cumulative' | 'steps'>('cumulative');
  const [error, setError] = useState<OpError | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const load = useCallback(async () => {
    try {
      const next = await client().call('review/get', { repoId, runId });
      setView(next);
      setVerdicts(initialVerdicts(next));
      setError(null);
    } catch (e) {
      setError(toOpError(e));
    }
  }, [repoId, runId]);
  useEffect(() => {
    void load();
  }, [load]);

  const applied = useMemo(() => new Set(view?.applied ?? []), [view]);
  /** What Apply would write now: accepted hunks the working tree does not hold yet. */
  const summary = useMemo(() => {
    if (!view) return { pending: [] as string[], total: 0, files: [] as string[] };
    const pending = view.files.flatMap((f) => f.hunks.filter((h) => verdicts[h.id] === 'accept' && !applied.has(h.id)).map((h) => h.id));
    const files = view.files.filter((f) => f.hunks.some((h) => pending.includes(h.id))).map((f) => f.path);
    const total = view.files.reduce((n, f) => n + f.hunks.length, 0);
    return { pending, total, files };
  }, [view, verdicts, applied]);

  if (error && !view) return <p className="error-text" role="alert">{error.message}</p>;
  if (!view) return <p className="muted">Loading the run's change…</p>;
  const hunks = (n: number) => `${n} ${n === 1 ? 'hunk' : 'hunks'}`;
  const filesText = (files: string[]) => `${files.length} ${files.length === 1 ? 'file' : 'files'}: ${files.join(', ')}`;
  const appliedFiles = view.files.filter((f) => f.hunks.some((h) => applied.has(h.id))).map((f) => f.path);

  const setMany = (ids: string[], verdict: Verdict) => setVerdicts((v) => ({ ...v, ...Object.fromEntries(ids.map((id) => [id, verdict])) }));
  const act = async (what: () => Promise<string>) => {
    setBusy(true);
    setNotice(null);
    try {
      setNotice(await what());
      setError(null);
      await load();
    } catch (e) {
      setError(toOpError(e));
    } finally {
      setBusy(false);
    }
  };
  const apply = () =>
    act(async () => {
      const result = await client().call('review/apply', { repoId, runId, accepted: summary.pending });
      return `Applied ${hunks(result.hunks)} to ${result.written.join(', ')}.`;
    });
  const undo = () =>
    act(async () => {
      const result = await client().call('review/undo', { repoId });
      return `Undone: ${result.restored.join(', ')} restored.`;
    });

  return (
    <section className="review" aria-label="Diff review" ref={setPanel}>
      <header className="review-head">
        <div className="segmented" role="tablist" aria-label="Change">
          <button type="button" role="tab" aria-selected={tab === 'cumulative'} className={tab === 'cumulative' ? 'active' : ''} onClick={() => setTab('cumulative')}>
            Cumulative
          </button>
          <button type="button" role="tab" aria-selected={tab === 'steps'} className={tab === 'steps' ? 'active' : ''} onClick={() => setTab('steps')}>
            Per step ({view.steps.length})
          </button>
        </div>
        <label className="check">
          <input type="checkbox" checked={sideBySide} onChange={(e) => setSideBySide(e.target.checked)} /> Side by side{sideBySideChoice === null && !wide ? <span className="muted"> (too narrow)</span> : null}
        </label>
        <span className="spacer" />
        {view.undo ? (
          <button type="button" disabled={busy} onClick={() => void undo()} title={`Applied ${new Date(view.undo.appliedAt).toLocaleString()}: ${view.undo.files.join(', ')}`}>
            Undo last apply
          </button>
        ) : null}
      </header>
      {tab === 'steps' ? (
        <div className="review-steps review-body">
          {view.steps.length === 0 ? <p className="muted">No step changed a file.</p> : null}
          {view.steps.map((step) => (
            <details key={step.id} className="review-step" open={view.steps.length <= 3}>
              <summary>{step.label}</summary>
              {step.diff.trim() ? <DiffView diff={step.diff} sideBySide={sideBySide} /> : <p className="muted">No change in this step.</p>}
            </details>
          ))}
        </div>
      ) : (
        <>
          <div className="review-body">
          {view.files.length === 0 ? <p className="muted">The run changed no file.</p> : null}
          {view.files.map((file) => (
            <div key={file.path} className="review-file" data-testid="review-file" data-path={file.path}>
              <div className="review-file-head">
                <strong className="mono">{file.path}</strong>
                <span className={`badge ${file.status}`}>{file.status}</span>
                {file.binary ? <span className="badge binary">binary</span> : null}
                <span className="spacer" />
                <button type="button" className="link" onClick={() => setMany(file.hunks.map((h) => h.id), 'accept')}>
                  Accept file
                </button>
                <button type="button" className="link danger" onClick={() => setMany(file.hunks.map((h) => h.id), 'reject')}>
                  Reject file
                </button>
              </div>
              {file.hunks.map((hunk, i) => {
                const isApplied = applied.has(hunk.id);
                const verdict = isApplied ? 'applied' : (verdicts[hunk.id] ?? 'accept');
                return (
                  <div key={hunk.id} className={`review-hunk ${verdict}`} data-testid="review-hunk" data-verdict={verdict}>
                    <div className="review-hunk-head">
                      <span className="muted">
                        {file.binary
                          ? `Binary file · ${sizeText(file.binary.before)} → ${sizeText(file.binary.after)} · written whole`
                          : `Hunk ${i + 1} of ${file.hunks.length} · line ${hunk.oldStart} · +${hunk.added} −${hunk.removed}`}
                      </span>
                      <span className="spacer" />
                      {isApplied ? (
                        <span className="badge done" role="group" aria-label={`Hunk ${i + 1} of ${file.path}`} title="In the working tree; Undo last apply takes it back">
                          Applied
                        </span>
                      ) : (
                      <div className="segmented" role="group" aria-label={`Hunk ${i + 1} of ${file.path}`}>
                        <button type="button" aria-pressed={verdict === 'accept'} className={verdict === 'accept' ? 'active' : ''} onClick={() => setMany([hunk.id], 'accept')}>
                          Accept
                        </button>
                        <button type="button" aria-pressed={verdict === 'reject'} className={verdict === 'reject' ? 'active reject' : ''} onClick={() => setMany([hunk.id], 'reject')}>
                          Reject
                        </button>
                      </div>
                      )}
                    </div>
                    {file.binary ? null : <DiffView diff={hunk.diff} sideBySide={sideBySide} />}
                  </div>
                );
              })}
            </div>
          ))}
          </div>
          <footer className="review-apply">
            {notice ? (
              <p className="review-notice" role="status">
                {notice}
              </p>
            ) : null}
            {error ? (
              <p className="error-text" role="alert">
                {error.message}
              </p>
            ) : null}
            <div className="review-apply-row">
              <span data-testid="review-summary">
                {applied.size ? `${hunks(applied.size)} of ${summary.total} applied (${appliedFiles.join(', ')}). ` : ''}
                {summary.pending.length
                  ? `Apply writes ${applied.size ? '' : `${summary.pending.length} of ${summary.total} `}${applied.size ? `${hunks(summary.pending.length)} more` : 'hunks'} to ${filesText(summary.files)}.`
                  : applied.size
                    ? 'Accept a rejected hunk to apply it too, or undo the apply.'
                    : `No hunk accepted (of ${summary.total}); nothing would be written.`}
              </span>
              <button type="button" className="primary" disabled={busy || summary.pending.length === 0} onClick={() => void apply()}>
                Apply to working tree
              </button>
            </div>
          </footer>
        </>
      )}
      {tab === 'steps' && error ? (
        <p className="error-text" role="alert">
          {error.message}
        </p>
      ) : null}
    </section>
  );
}
