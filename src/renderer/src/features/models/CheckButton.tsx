import { useEffect } from 'react';
import { navSelectors, useNavStore } from '../../app/store/navStore';
import { ProgressBar } from '../../components/ProgressBar';
import { reposSelectors, useReposStore } from '../repos/store';
import { runsSelectors, useRunsStore } from '../runs/store';
import { useModelsStore } from './store';

/**
 * "Check on this repository": the judging stages' models asked labelled questions from the current
 * repository's own history; the figures appear beside each assignment.
 */
export function CheckButton() {
  const repoId = useNavStore(navSelectors.repoId);
  const repo = useReposStore(reposSelectors.byId(repoId));
  const runId = useModelsStore((s) => s.checkRunId);
  const error = useModelsStore((s) => s.errors.check ?? null);
  const run = useRunsStore(runsSelectors.byId(runId));
  const { check, loadChecks } = useModelsStore.getState();
  useEffect(() => {
    if (repo) void loadChecks(repo.path);
  }, [repo, loadChecks]);
  if (!repo) return null;
  const p = run?.status === 'running' ? run.progress : undefined;
  return (
    <div className="row check-models" data-testid="check-models">
      {run?.status === 'running' ? (
        <>
          <ProgressBar percent={p?.total ? (p.done / p.total) * 100 : null} label="Checking models" />
          <span className="muted small">{p ? `${p.phase} ${p.done}/${p.total ?? '?'}` : 'Starting'}</span>
          <button type="button" onClick={() => void useRunsStore.getState().cancel(run.runId)}>
            Cancel
          </button>
        </>
      ) : (
        <button type="button" title={`Ask the scope and precision models 40 labelled questions each from ${repo.name}'s history, and the plan model to plan its recent tasks`} onClick={() => void check(repo.path)}>
          Check on this repository
        </button>
      )}
      {error ? <span className="error-text small">{error.message}</span> : null}
    </div>
  );
}
