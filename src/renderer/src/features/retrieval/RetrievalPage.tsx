import { useEffect } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { RETRIEVAL_STAGE_NAMES } from '../../../../shared/contract';
import { navSelectors, useNavStore } from '../../app/store/navStore';
import { EmptyState } from '../../components/EmptyState';
import { reposSelectors, useReposStore } from '../repos/store';
import { PackageView } from './PackageView';
import { RunProgress } from './RunProgress';
import { useRetrievalStore } from './store';
import { SetupModels } from '../models/SetupModels';

/** The task, the stages and the budget; Run, or Cancel while a run goes. */
function TaskForm(props: { repoId: string }) {
  const { task, stages, budget, defaults, inspection } = useRetrievalStore(
    useShallow((s) => ({ task: s.task, stages: s.stages, budget: s.budget, defaults: s.defaults, inspection: s.inspection })),
  );
  const { setTask, toggleStage, setBudget, run, cancel } = useRetrievalStore.getState();
  const busy = inspection?.status === 'starting' || inspection?.status === 'running';
  const windowTokens = Number(budget.contextWindow || defaults?.contextWindow);
  const reserved = Number(budget.reservedTokens || defaults?.reservedTokens);
  const effective = Number.isFinite(windowTokens) && Number.isFinite(reserved) ? windowTokens - reserved : null;
  return (
    <form
      className="panel inspector-form"
      aria-label="Inspect a task"
      onSubmit={(e) => {
        e.preventDefault();
        void run(props.repoId);
      }}
    >
      <textarea
        aria-label="Task"
        rows={3}
        value={task}
        placeholder="Describe a coding task, e.g. “Fix compute_discount rounding in inventory/pricing.py” (Ctrl+Enter runs)"
        onChange={(e) => setTask(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
            e.preventDefault();
            void run(props.repoId);
          }
        }}
      />
      <div className="row inspector-options">
        <fieldset className="row">
          <legend className="muted">Stages</legend>
          {RETRIEVAL_STAGE_NAMES.map((name) => (
            <label key={name} className="row">
              <input type="checkbox" checked={stages.includes(name)} disabled={busy} onChange={() => toggleStage(name)} /> {name}
            </label>
          ))}
        </fieldset>
        <label className="row">
          Context window
          <input
            aria-label="Context window"
            className="tokens-input"
            type="number"
            min={1}
            value={budget.contextWindow}
            placeholder={defaults ? String(defaults.contextWindow) : ''}
            onChange={(e) => setBudget({ contextWindow: e.target.value })}
          />
        </label>
        <label className="row">
          Reserved
          <input
            aria-label="Reserved tokens"
            className="tokens-input"
            type="number"
            min={0}
            value={budget.reservedTokens}
            placeholder={defaults ? String(defaults.reservedTokens) : ''}
            onChange={(e) => setBudget({ reservedTokens: e.target.value })}
          />
        </label>
        <span className="muted" data-testid="effective-budget">
          {effective !== null ? `= ${effective.toLocaleString('en')} tokens for context` : ''}
          {!budget.contextWindow && !budget.reservedTokens ? ' (from the config)' : ''}
        </span>
        <span className="grow" />
        {busy ? (
          <button type="button" onClick={() => void cancel()}>
            Cancel
          </button>
        ) : (
          <button type="submit" className="primary" disabled={!task.trim() || stages.length === 0}>
            Run
          </button>
        )}
      </div>
    </form>
  );
}

/** Context inspector: run a task through the retrieval pipeline and see every decision behind the package. */
export function RetrievalPage() {
  const repoId = useNavStore(navSelectors.repoId);
  const go = useNavStore((s) => s.go);
  const repo = useReposStore(reposSelectors.byId(repoId));
  const isLoaded = useReposStore(reposSelectors.isLoaded);
  const inspection = useRetrievalStore((s) => s.inspection);
  const loadDefaults = useRetrievalStore((s) => s.loadDefaults);
  const resume = useRetrievalStore((s) => s.resume);
  useEffect(() => {
    void loadDefaults();
  }, [loadDefaults]);
  // A second window, or this one reloaded: the repository's running retrieve run is shown in full.
  useEffect(() => {
    if (repoId) void resume(repoId);
  }, [repoId, resume]);

  if (!repo) {
    return (
      <EmptyState
        title="Context inspector"
        action={
          <button type="button" className="primary" onClick={() => go('repositories')}>
            Add a repository
          </button>
        }
      >
        <p>Run a coding task through the retrieval pipeline and see which files and symbols it keeps, why, and at what cost.</p>
        <p>{isLoaded ? 'There is no repository yet: add one on the Repositories page.' : 'Loading repositories…'}</p>
      </EmptyState>
    );
  }
  const mine = inspection && inspection.repoId === repo.id ? inspection : null;
  return (
    <div className="page inspector-page">
      <header className="page-header">
        <h1>Context inspector</h1>
        <span className="muted">{repo.name} · judgments use the models assigned to scope and precision (Models page)</span>
      </header>
      <SetupModels stages={['task_analysis', 'scope', 'precision']} />
      <TaskForm repoId={repo.id} />
      {mine?.error ? (
        <p className="error-text" role="alert">
          {mine.error}
        </p>
      ) : null}
      {mine?.status === 'cancelled' ? (
        <p className="muted" role="status">
          Cancelled: no package. The judgments made so far are kept below and in Logs.
        </p>
      ) : null}
      {/* A refused run (no models, bad budget) never started: the error says it all. */}
      {mine && (mine.runId || mine.status === 'starting') ? <RunProgress inspection={mine} /> : null}
      {mine?.result ? <PackageView result={mine.result} taskId={mine.taskId ?? mine.result.package.taskId} repoId={mine.repoId} runId={mine.runId} /> : null}
    </div>
  );
}
