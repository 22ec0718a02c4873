import { useState } from 'react';
import type { SolveRunDetail } from '../../../../shared/contract';
import { client } from '../../lib/client';
import { toOpError, type OpError } from '../../lib/errors';
import { explainFailure, type Explained } from './failures';
import { useSolveStore } from './solveStore';
import { usePlansStore } from './store';

/** Why a run (or a pass) failed, in product words, with the engine's reason behind "Details". */
export function FailureText(props: { explained: Explained }) {
  const { what, advice, detail } = props.explained;
  return (
    <div className="failure-text" data-testid="failure-text">
      <p className="failure-what">{what}</p>
      <p className="muted">{advice}</p>
      <details>
        <summary>Details</summary>
        <pre className="validation-output">{detail}</pre>
      </details>
    </div>
  );
}

/** The reasons a finished run gives for what it did not do: its outcome's, else its failed passes'. */
function reasonsOf(detail: SolveRunDetail): string[] {
  const reasons = detail.outcome?.notCompleted.map((n) => n.reason) ?? [];
  const fromPasses = detail.passes.filter((p) => p.status === 'failed' && p.error).map((p) => p.error!);
  return [...new Set(reasons.length ? reasons : fromPasses)];
}

/** The newest saved plan of the run's task (plan runs carry the task, not the plan's id). */
function planOf(detail: SolveRunDetail) {
  return usePlansStore.getState().plans.find((p) => p.task === detail.task) ?? null;
}

/**
 * A failed or partial run: what went wrong and what to try, then Run again (the same task, or the
 * same plan) and, for a plan's run, Edit the plan — which opens it to change and run again.
 */
export function RunFailure(props: { detail: SolveRunDetail; repoId: string }) {
  const { detail } = props;
  const [error, setError] = useState<OpError | null>(null);
  const [busy, setBusy] = useState(false);
  const reasons = reasonsOf(detail);
  const explained = reasons.map(explainFailure);
  const first = explained[0] ?? explainFailure(detail.status);
  const plan = detail.mode === 'plan' ? planOf(detail) : null;
  const again = async () => {
    setBusy(true);
    try {
      const saved = plan ? (await client().call('plans/get', { repoId: props.repoId, planId: plan.id })).plan.plan : undefined;
      await useSolveStore.getState().start({ task: detail.task, ...(saved ? { plan: saved } : {}) });
      setError(null);
    } catch (e) {
      setError(toOpError(e));
    } finally {
      setBusy(false);
    }
  };
  const edit = () => {
    if (!plan) return;
    void useSolveStore.getState().open(null);
    void usePlansStore.getState().open(plan.id);
  };
  return (
    <section className="run-failure" aria-label="Why the run failed" data-testid="run-failure">
      <strong>{detail.status === 'partial' ? 'Part of the task was not done.' : 'The run did not finish the task.'}</strong>
      <FailureText explained={{ ...first, detail: reasons.join('\n') || first.detail }} />
      <div className="row">
        <button type="button" className="primary" disabled={busy} onClick={() => void again()}>
          Run again
        </button>
        {plan ? (
          <button type="button" onClick={edit}>
            Edit the plan
          </button>
        ) : null}
      </div>
      {error ? (
        <p className="error-text" role="alert">
          {error.message}
        </p>
      ) : null}
    </section>
  );
}
