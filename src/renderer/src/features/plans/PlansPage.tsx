import { useEffect, useState } from 'react';
import { navSelectors, useNavStore } from '../../app/store/navStore';
import type { PlanSummary } from '../../../../shared/contract/plans';
import { EmptyState } from '../../components/EmptyState';
import { reposSelectors, useReposStore } from '../repos/store';
import { runsSelectors, useRunsStore } from '../runs/store';
import { PlanEditor } from './PlanEditor';
import { RunView } from './RunView';
import { solveSelectors, useSolveStore } from './solveStore';
import './plans.css';
import { plansSelectors, usePlansStore } from './store';
import { SandboxQuestion } from './SandboxQuestion';
import { SetupModels } from '../models/SetupModels';

/** Plans & Runs: make a plan for a task, edit it (live validation), save versions. */
export function PlansPage() {
  const repoId = useNavStore(navSelectors.repoId);
  const go = useNavStore((s) => s.go);
  const repo = useReposStore(reposSelectors.byId(repoId));
  const isReposLoaded = useReposStore(reposSelectors.isLoaded);

  const runOnScreen = useSolveStore(solveSelectors.selectedId);
  useEffect(() => {
    if (!repo) return;
    void usePlansStore.getState().load(repo.id);
    void useSolveStore.getState().load(repo.id);
  }, [repo]);

  if (!repo) {
    return (
      <EmptyState
        title="Plans & Runs"
        action={
          <button type="button" className="primary" onClick={() => go('repositories')}>
            Add a repository
          </button>
        }
      >
        <p>Describe a coding task; the reasoning model plans which files change, what changes in them and in what order. Edit the plan, then run it.</p>
        <p>{isReposLoaded ? 'There is no repository yet: add one on the Repositories page.' : 'Loading repositories…'}</p>
      </EmptyState>
    );
  }
  return (
    <div className="page plans-page">
      <header className="page-header">
        <h1>Plans & Runs</h1>
        <span className="muted">{repo.name} · plans use the model assigned to the reasoning stage (Models page)</span>
      </header>
      <SetupModels stages={['task_analysis', 'scope', 'plan']} />
      <NewPlanForm />
      <SandboxQuestion />
      <div className="plans-split">
        <div className="plans-side">
          <PlanList />
          <RunList />
        </div>
        {runOnScreen ? <RunView repoId={repo.id} /> : <PlanEditor />}
      </div>
    </div>
  );
}

function NewPlanForm() {
  const [task, setTask] = useState('');
  const creating = usePlansStore(plansSelectors.creating);
  const run = useRunsStore(runsSelectors.byId(creating?.runId ?? null));
  const error = usePlansStore(plansSelectors.error('create'));
  const cancel = useRunsStore((s) => s.cancel);
  return (
    <form
      className="new-plan"
      onSubmit={(e) => {
        e.preventDefault();
        if (task.trim()) void usePlansStore.getState().create(task.trim());
      }}
    >
      <label className="field">
        <span>Task</span>
        <textarea rows={3} placeholder="Describe the change, e.g. Add a --verbose flag to the CLI" value={task} onChange={(e) => setTask(e.target.value)} />
      </label>
      {creating ? (
        <div className="plan-creating" role="status">
          <span>Planning… {run?.progress?.phase ? `(${String(run.progress.phase)})` : ''}</span>
          <button type="button" onClick={() => void cancel(creating.runId)}>
            Cancel
          </button>
        </div>
      ) : (
        <div className="row">
          <button type="submit" className="primary" disabled={!task.trim()}>
            Plan
          </button>
          <button type="button" disabled={!task.trim()} title="Solve without a plan to edit: meta-plan, parts, steps, each step validated" onClick={() => void useSolveStore.getState().start({ task: task.trim() })}>
            Solve
          </button>
        </div>
      )}
      {error ? (
        <p className="error-text" role="alert">
          {error.message}
        </p>
      ) : null}
    </form>
  );
}

function PlanList() {
  const plans = usePlansStore(plansSelectors.plans);
  const isLoaded = usePlansStore(plansSelectors.isLoaded);
  const selectedId = usePlansStore(plansSelectors.selectedId);
  const error = usePlansStore(plansSelectors.error('load'));
  const open = usePlansStore((s) => s.open);
  if (error) return <p className="error-text" role="alert">Could not list plans: {error.message}</p>;
  if (!isLoaded) return <p className="muted">Loading plans…</p>;
  if (plans.length === 0) return <p className="muted">No plans yet. Describe a task above and press Plan.</p>;
  // One entry per task as the user wrote it; its versions (newest first) under it.
  const groups = new Map<string, PlanSummary[]>();
  for (const p of plans) groups.set(p.task, [...(groups.get(p.task) ?? []), p]);
  return (
    <ul className="plan-list" aria-label="Plans">
      {[...groups].map(([task, versions]) => (
        <li key={task} className="plan-group" data-testid="plan-group">
          <span className="plan-list-title" title={versions[0]!.taskSummary === task ? undefined : `The model's summary: ${versions[0]!.taskSummary}`}>
            {task}
          </span>
          <ul className="plan-versions">
            {versions.map((p) => (
              <li key={p.id}>
                <button type="button" className={p.id === selectedId ? 'link current' : 'link'} aria-current={p.id === selectedId} onClick={() => {
                    void useSolveStore.getState().open(null);
                    void open(p.id);
                  }}>
                  <span className="muted">
                    v{p.version} · {p.files} {p.files === 1 ? 'file' : 'files'} · {new Date(p.createdAt).toLocaleString()}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </li>
      ))}
    </ul>
  );
}

function RunList() {
  const runs = useSolveStore(solveSelectors.runs);
  const selectedId = useSolveStore(solveSelectors.selectedId);
  const error = useSolveStore(solveSelectors.error('list')) ?? useSolveStore.getState().errors.start ?? null;
  if (error) return <p className="error-text" role="alert">{error.message}</p>;
  if (runs.length === 0) return null;
  return (
    <>
      <h3 className="side-heading">Runs</h3>
      <ul className="plan-list" aria-label="Runs">
        {runs.map((r) => (
          <li key={r.solveRunId}>
            <button type="button" className={r.solveRunId === selectedId ? 'link current' : 'link'} aria-current={r.solveRunId === selectedId} onClick={() => void useSolveStore.getState().open(r.solveRunId)}>
              <span className="plan-list-title">{r.task}</span>
              <span className="muted">
                {r.status} · {r.mode === 'plan' ? 'plan' : `${r.totalParts ?? '?'} parts`} · {new Date(r.startedAt).toLocaleString()}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </>
  );
}
