import { useState } from 'react';
import type { RepoInfo } from '../../../../shared/contract';
import { IndexProgress } from './IndexProgress';
import { formatRelativeTime, languagesOf } from './reducers';
import { runsSelectors, useRunsStore } from '../runs/store';
import { useReposStore } from './store';
import { VectorCoverage } from './VectorCoverage';

const COLUMNS = 7;

/** One repository of the list; with its running index, its failure and the remove confirmation under it. */
export function RepoRow(props: { repo: RepoInfo; isCurrent: boolean; onSelect(): void }) {
  const { repo } = props;
  const run = useRunsStore(runsSelectors.activeRepoRun(repo.id));
  const { reindex, remove, setWatching, cancel } = useReposStore.getState();
  const [isConfirming, setConfirming] = useState(false);
  const status = run?.kind === 'index' ? 'indexing' : repo.status;
  return (
    <>
      <tr
        className={props.isCurrent ? 'repo-row selected' : 'repo-row'}
        data-testid="repo-row"
        data-repo-id={repo.id}
        aria-selected={props.isCurrent}
        onClick={props.onSelect}
      >
        <td>
          <div className="repo-name">
            {repo.name}
            {repo.git === false ? (
              <span className="chip chip-warn" data-testid="no-git" title="Not a git repository: no commits or co-change history">
                no git history
              </span>
            ) : null}
          </div>
          <div className="muted mono repo-path" title={repo.path}>
            {repo.path}
          </div>
          <VectorCoverage repo={repo} />
        </td>
        <td>
          {languagesOf(repo)
            .slice(0, 5)
            .map((l) => (
              <span key={l.language} className="chip" title={`${l.files} files`}>
                {l.language}
              </span>
            ))}
        </td>
        <td className="num mono" data-testid="repo-files">{repo.stats.files.toLocaleString()}</td>
        <td className="num mono" data-testid="repo-symbols">{repo.stats.symbols.toLocaleString()}</td>
        <td title={repo.lastIndexedAt ?? undefined}>{formatRelativeTime(repo.lastIndexedAt)}</td>
        <td>
          <span className={`repo-status status-${status}`} data-testid="repo-status">
            {status}
          </span>
        </td>
        <td className="repo-actions" onClick={(event) => event.stopPropagation()}>
          <label className="watch-toggle" title="Re-index files when they are saved">
            <input type="checkbox" checked={repo.watching} onChange={(event) => void setWatching(repo.id, event.target.checked)} /> Watch
          </label>
          <button type="button" disabled={run?.kind === 'index'} onClick={() => void reindex(repo.id)}>
            Re-index
          </button>
          <button type="button" className="danger" onClick={() => setConfirming(true)}>
            Remove
          </button>
        </td>
      </tr>
      {run ? (
        <tr className="repo-detail">
          <td colSpan={COLUMNS}>
            <IndexProgress run={run} onCancel={() => void cancel(run.runId)} />
          </td>
        </tr>
      ) : null}
      {repo.status === 'failed' && repo.error && !run ? (
        <tr className="repo-detail">
          <td colSpan={COLUMNS} className="error-text">
            Indexing failed: {repo.error.message}
          </td>
        </tr>
      ) : null}
      {isConfirming ? (
        <tr className="repo-detail">
          <td colSpan={COLUMNS}>
            <div className="confirm" role="alertdialog" aria-label={`Remove ${repo.name}`}>
              <span className="grow">
                Remove <strong>{repo.name}</strong> from Clean Room? Only our index of it is deleted; the files in{' '}
                <span className="mono">{repo.path}</span> are not touched.
              </span>
              <button type="button" className="danger" onClick={() => void remove(repo.id).then(() => setConfirming(false))}>
                Remove index
              </button>
              <button type="button" onClick={() => setConfirming(false)}>
                Keep
              </button>
            </div>
          </td>
        </tr>
      ) : null}
    </>
  );
}
