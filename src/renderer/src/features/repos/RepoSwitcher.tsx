import { useEffect, useState } from 'react';
import { navSelectors, useNavStore } from '../../app/store/navStore';
import { runsSelectors, useRunsStore } from '../runs/store';
import { formatRelativeTime, progressPercent } from './reducers';
import { reposSelectors, useReposStore } from './store';

/** Top of the main area: the current repository (switcher) and its index state. */
export function RepoSwitcher() {
  const repos = useReposStore(reposSelectors.repos);
  const repoId = useNavStore(navSelectors.repoId);
  const selectRepo = useNavStore((s) => s.selectRepo);
  const go = useNavStore((s) => s.go);
  const repo = useReposStore(reposSelectors.byId(repoId));
  const run = useRunsStore(runsSelectors.activeRepoRun(repoId));
  const now = useNow(30_000);

  if (repos.length === 0) {
    return (
      <div className="repo-bar" data-testid="repo-bar">
        <span className="muted">No repository yet.</span>
        <button type="button" className="link" onClick={() => go('repositories')}>
          Add one
        </button>
      </div>
    );
  }
  const percent = progressPercent(run?.progress);
  return (
    <div className="repo-bar" data-testid="repo-bar">
      <select aria-label="Current repository" value={repoId ?? ''} onChange={(event) => selectRepo(event.target.value || null)}>
        {repoId ? null : <option value="">Choose a repository</option>}
        {repos.map((r) => (
          <option key={r.id} value={r.id} title={r.path}>
            {r.name}
          </option>
        ))}
      </select>
      {repo ? (
        <span className="muted repo-bar-state" data-testid="repo-bar-state">
          {repo.stats.files.toLocaleString()} files · {repo.stats.symbols.toLocaleString()} symbols ·{' '}
          {repo.lastIndexedAt ? `indexed ${formatRelativeTime(repo.lastIndexedAt, now)}` : 'not indexed yet'}
          {repo.status === 'failed' ? <span className="error-text"> · last index failed</span> : null}
        </span>
      ) : null}
      {run ? (
        <span className="repo-bar-run" title={`${run.kind === 'embed' ? 'Embedding' : 'Indexing'}: ${run.progress?.phase ?? 'starting'}`}>
          <ProgressRing percent={percent} />
          <span className="muted">
            {run.progress?.phase ?? 'starting'}
            {percent !== null ? ` ${percent}%` : '…'}
          </span>
        </span>
      ) : null}
    </div>
  );
}

/** A small ring; spinning when the total is not known. */
function ProgressRing(props: { percent: number | null }) {
  const radius = 6;
  const circumference = 2 * Math.PI * radius;
  const filled = props.percent === null ? circumference * 0.25 : (circumference * props.percent) / 100;
  return (
    <svg className={props.percent === null ? 'ring spinning' : 'ring'} width="16" height="16" viewBox="0 0 16 16" aria-hidden="true">
      <circle cx="8" cy="8" r={radius} fill="none" stroke="var(--border)" strokeWidth="2" />
      <circle
        cx="8"
        cy="8"
        r={radius}
        fill="none"
        stroke="var(--accent)"
        strokeWidth="2"
        strokeDasharray={`${filled} ${circumference}`}
        transform="rotate(-90 8 8)"
      />
    </svg>
  );
}

/** The current time, refreshed every `everyMs` (for "indexed 3 min ago"). */
function useNow(everyMs: number): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
