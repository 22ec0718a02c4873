import { useState } from 'react';
import { ProgressBar } from '../../components/ProgressBar';
import { navSelectors, useNavStore } from '../../app/store/navStore';
import { useReposStore } from '../repos/store';
import { evalSelectors, useEvalStore } from './store';

/** Start an evaluation on a repository path (prefilled with the current repository). */
export function StartEvalForm() {
  const currentId = useNavStore(navSelectors.repoId);
  const currentPath = useReposStore((s) => s.repos.find((r) => r.id === currentId)?.path ?? '');
  const run = useEvalStore(evalSelectors.run);
  const error = useEvalStore(evalSelectors.error('start'));
  const start = useEvalStore((s) => s.start);
  const cancel = useEvalStore((s) => s.cancel);
  const [path, setPath] = useState<string | null>(null);
  const [commits, setCommits] = useState('50');
  const value = path ?? currentPath;
  const isRunning = run?.status === 'running';
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
        <button type="submit" className="primary" disabled={isRunning || !value.trim()}>
          Start
        </button>
        {isRunning ? (
          <button type="button" onClick={() => void cancel()}>
            Cancel
          </button>
        ) : null}
      </div>
      {run ? <RunLine /> : null}
      {error ? <p className="error-text" role="alert">{error.message}</p> : null}
    </form>
  );
}

function RunLine() {
  const run = useEvalStore(evalSelectors.run)!;
  if (run.status === 'running') {
    const pct = run.total ? Math.round((100 * run.done) / run.total) : 0;
    return (
      <div className="row eval-run" role="status">
        <ProgressBar percent={pct} label="Evaluation progress" />
        <span className="progress-figures">{run.total ? `${run.done}/${run.total} tasks` : 'mining commits'}</span>
        <span className="muted progress-message">{run.message}</span>
      </div>
    );
  }
  if (run.status === 'failed') return <p className="error-text" role="alert">The evaluation failed: {run.error}</p>;
  if (run.status === 'cancelled') return <p className="muted">The evaluation was cancelled.</p>;
  return null;
}
