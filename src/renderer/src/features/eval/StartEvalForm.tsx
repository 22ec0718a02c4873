import { useState } from 'react';
import { ProgressBar } from '../../components/ProgressBar';
import { navSelectors, useNavStore } from '../../app/store/navStore';
import { useReposStore } from '../repos/store';
import { evalSelectors, useEvalRun, useEvalStore } from './store';

/**
 * Start an evaluation on a repository path (prefilled with the current repository). While a run
 * goes, the form gives way to what is running (its repository and commit count), its progress and
 * Cancel: the fields would otherwise show the current repository and the default count, not the run.
 */
export function StartEvalForm() {
  const currentId = useNavStore(navSelectors.repoId);
  const currentPath = useReposStore((s) => s.repos.find((r) => r.id === currentId)?.path ?? '');
  const run = useEvalRun();
  const error = useEvalStore(evalSelectors.error('start'));
  const start = useEvalStore((s) => s.start);
  const [path, setPath] = useState<string | null>(null);
  const [commits, setCommits] = useState('50');
  const value = path ?? currentPath;

  if (run?.status === 'running') return <RunningEval />;

  return (
    <form
      className="eval-start"
      aria-label="Start an evaluation"
      onSubmit={(event) => {
        event.preventDefault();
        if (value.trim()) void start({ repoPath: value, commits: Number(commits) || undefined });
      }}
    >
      <div className="row">
        <input className="grow mono" aria-label="Repository path" placeholder="/path/to/a/git/repository" value={value} spellCheck={false} onChange={(e) => setPath(e.target.value)} />
        <label className="muted">
          commits <input aria-label="Commits" className="commits" type="number" min={1} max={1000} value={commits} onChange={(e) => setCommits(e.target.value)} />
        </label>
        <button type="submit" className="primary" disabled={!value.trim()}>
          Start
        </button>
      </div>
      {run?.status === 'failed' ? <p className="error-text" role="alert">The evaluation failed: {run.error}</p> : null}
      {run?.status === 'cancelled' ? <p className="muted">The evaluation was cancelled.</p> : null}
      {error ? <p className="error-text" role="alert">{error.message}</p> : null}
    </form>
  );
}

/** The running evaluation: what it measures, how far it is, and Cancel. */
function RunningEval() {
  const run = useEvalRun()!;
  const cancel = useEvalStore((s) => s.cancel);
  const error = useEvalStore(evalSelectors.error('start'));
  const percent = run.total ? Math.round((100 * run.done) / run.total) : null;
  return (
    <section className="eval-start eval-running" aria-label="Running evaluation">
      <div className="row">
        <span className="grow">
          Evaluating <span className="mono" data-testid="eval-running-what">{run.what}</span>
        </span>
        <button type="button" onClick={() => void cancel()}>
          Cancel
        </button>
      </div>
      <div className="row eval-run" role="status">
        <ProgressBar className="grow" percent={percent} label="Evaluation progress" />
        <span className="progress-figures">{run.total ? `${run.done}/${run.total} tasks` : 'mining commits'}</span>
      </div>
      <div className="muted progress-message">{run.message}</div>
      {error ? <p className="error-text" role="alert">{error.message}</p> : null}
    </section>
  );
}
