import type { ProgressNode } from '../../../../shared/contract';
import { ProgressBar } from '../../components/ProgressBar';
import { runsSelectors, useRunsStore } from '../runs/store';
import { judgmentCounts, type Inspection } from './reducers';
import { useOpenCall, useOpenRun, VerdictChip } from './VerdictChip';

/** Judgments shown in the live list (newest first). */
const SHOWN = 40;

/** A stage's row; once the run ended (`ended`), a stage still running says it stopped and a pending one that it did not run. */
function StageRow(props: { node: ProgressNode; yes?: number; child?: boolean; ended: 'cancelled' | 'failed' | null }) {
  const n = props.node;
  const status = props.ended && n.status === 'running' ? props.ended : props.ended && n.status === 'pending' ? 'not run' : n.status;
  const finished = n.status === 'done' || n.status === 'skipped';
  const percent = finished ? 100 : n.total ? Math.round(((n.done ?? 0) / n.total) * 100) : n.status === 'running' && !props.ended ? null : 0;
  const count = n.done === undefined || (n.status === 'pending' && !n.done) ? '' : n.total !== undefined ? `${n.done} / ${n.total}` : `${n.done} judged`;
  return (
    <li className={props.child ? 'stage-row child' : 'stage-row'} data-testid={`stage-${n.id}`}>
      <span className="stage-name">{n.label}</span>
      <ProgressBar percent={percent} label={`${n.label} progress`} />
      <span className="stage-count mono">{count}</span>
      <span className="stage-status muted">
        {status}
        {props.yes !== undefined ? ` · ${props.yes} yes` : ''}
      </span>
    </li>
  );
}

/** Per stage: judgments done / total (the total is known when the stage ends), and the judgments as they arrive. */
export function RunProgress(props: { inspection: Inspection }) {
  const { inspection } = props;
  const run = useRunsStore(runsSelectors.byId(inspection.runId));
  const openCall = useOpenCall(inspection.repoId, inspection.runId);
  const openRun = useOpenRun(inspection.repoId);
  const ended = inspection.status === 'cancelled' || inspection.status === 'failed' ? inspection.status : null;
  const steps = run?.progress?.steps ?? [];
  const counts = new Map(judgmentCounts(inspection.judgments).map((c) => [c.stage, c] as const));
  const yesOf = (node: ProgressNode) => {
    const own = counts.get(node.id)?.yes;
    if (own !== undefined) return own;
    const kids = (node.children ?? []).map((c) => counts.get(c.id)?.yes ?? 0);
    return kids.length ? kids.reduce((a, b) => a + b, 0) : undefined;
  };
  const shown = inspection.judgments.slice(-SHOWN).reverse();
  return (
    <section className="panel inspector-progress" aria-label="Progress">
      <div className="row">
        <strong>Judgments</strong>
        <span className="muted" data-testid="judgment-total">
          {inspection.judgments.length} so far{inspection.status === 'running' || inspection.status === 'starting' ? '…' : ''}
        </span>
        <span className="grow" />
        {inspection.runId ? (
          <button type="button" className="link" onClick={() => openRun(inspection.runId as string)}>
            All calls of this run in Logs
          </button>
        ) : null}
      </div>
      <ul className="stage-list">
        {steps.length === 0 && !ended && inspection.status !== 'done' ? <li className="muted">Analysing the task…</li> : null}
        {steps.map((node) => [
          <StageRow key={node.id} node={node} yes={yesOf(node)} ended={ended} />,
          ...(node.children ?? []).map((c) => <StageRow key={`${node.id}/${c.id}`} node={c} yes={counts.get(c.id)?.yes} ended={ended} child />),
        ])}
      </ul>
      {shown.length > 0 ? (
        // Open while judgments stream in (and after a stop); folded once the package is there. The key remounts it when that changes.
        <details key={inspection.result ? 'package' : 'live'} className="judgment-details" open={inspection.result ? undefined : true}>
          <summary className="muted">
            Judgments as they arrived{inspection.judgments.length > SHOWN ? ` (the last ${SHOWN})` : ''}
          </summary>
          <ol className="judgment-feed" aria-label="Judgments as they arrive">
            {shown.map((j) => (
              <li key={`${j.stage}-${j.done}`} data-testid="judgment">
                <span className="mono judgment-item" title={j.item}>
                  {j.item}
                </span>
                <VerdictChip verdict={j} onOpen={openCall} />
              </li>
            ))}
          </ol>
        </details>
      ) : null}
    </section>
  );
}
