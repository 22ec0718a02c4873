import { useState } from 'react';
import { ProgressBar } from '../../components/ProgressBar';
import { navSelectors, useNavStore } from '../../app/store/navStore';
import { useReposStore } from '../repos/store';
import { runPercent } from '../runs/reducers';
import { runsSelectors, useRunsStore } from '../runs/store';
import { client } from '../../lib/client';
import { dataSelectors, useTrainingStore } from './store';

/** Start a bootstrap on a repository path; while it runs, what runs, its progress and Cancel. */
export function BootstrapForm() {
  const currentId = useNavStore(navSelectors.repoId);
  const currentPath = useReposStore((s) => s.repos.find((r) => r.id === currentId)?.path ?? '');
  const runId = useTrainingStore(dataSelectors.runId);
  const run = useRunsStore(runsSelectors.byId(runId));
  const error = useTrainingStore(dataSelectors.error('bootstrap'));
  const bootstrap = useTrainingStore((s) => s.bootstrap);
  const [path, setPath] = useState<string | null>(null);
  const [commits, setCommits] = useState('50');
  const value = path ?? currentPath;

  if (run?.status === 'running') {
    const percent = runPercent(run);
    return (
      <section className="data-bootstrap" aria-label="Running bootstrap">
        <div className="row">
          <span className="grow">
            Bootstrapping <span className="mono">{run.kind === 'bootstrap' ? run.subject.repoPath : ''}</span>
          </span>
          <button type="button" onClick={() => void client().call('run/cancel', { runId: run.runId })}>
            Cancel
          </button>
        </div>
        <div className="row" role="status">
          <ProgressBar className="grow" percent={percent} label="Bootstrap progress" />
          <span className="progress-figures">{run.progress?.total ? `${run.progress.done}/${run.progress.total} commits` : 'mining commits'}</span>
        </div>
        <div className="muted progress-message">{run.progress?.message}</div>
      </section>
    );
  }

  return (
    <form
      className="data-bootstrap"
      aria-label="Bootstrap training data"
      onSubmit={(event) => {
        event.preventDefault();
        if (value.trim()) void bootstrap(value, Number(commits) || undefined);
      }}
    >
      <div className="row">
        <input className="grow mono" aria-label="Repository path" placeholder="/path/to/a/git/repository" value={value} spellCheck={false} onChange={(e) => setPath(e.target.value)} />
        <label className="muted">
          commits <input aria-label="Commits" className="commits" type="number" min={1} max={10000} value={commits} onChange={(e) => setCommits(e.target.value)} />
        </label>
        <button type="submit" className="primary" disabled={!value.trim()}>
          Bootstrap
        </button>
      </div>
      {run?.status === 'failed' ? <p className="error-text" role="alert">The bootstrap failed: {run.error?.message}</p> : null}
      {run?.status === 'cancelled' ? <p className="muted">The bootstrap was cancelled; finished commits are kept.</p> : null}
      {error ? <p className="error-text" role="alert">{error.message}</p> : null}
    </form>
  );
}
