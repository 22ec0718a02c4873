import { navSelectors, useNavStore } from '../../app/store/navStore';
import { countOf, formatMs, formatPhases } from '../../../../shared/format';
import { EmptyState } from '../../components/EmptyState';
import { AddRepoForm } from './AddRepoForm';
import { RepoRow } from './RepoRow';
import { SkippedList } from './SkippedList';
import { runsSelectors, useRunsStore } from '../runs/store';
import { reposSelectors, useReposStore } from './store';

/** Repositories: add a folder, watch it index, re-index, remove; the selected row is the current repository. */
export function ReposPage() {
  const repos = useReposStore(reposSelectors.repos);
  const isLoaded = useReposStore(reposSelectors.isLoaded);
  const loadError = useReposStore(reposSelectors.error('load'));
  const actionError = useReposStore(reposSelectors.error('action'));
  const currentId = useNavStore(navSelectors.repoId);
  const selectRepo = useNavStore((s) => s.selectRepo);
  const current = repos.find((r) => r.id === currentId) ?? null;
  const lastRun = useRunsStore(runsSelectors.lastIndexSummary(current?.id ?? null));

  // Mount the add form only once the list is known: the page switches between its empty state and
  // the list when it arrives, and a path typed into the first form meanwhile would be lost.
  if (!isLoaded && !loadError) {
    return (
      <div className="page repos-page">
        <p className="muted">Loading repositories…</p>
      </div>
    );
  }

  if (isLoaded && repos.length === 0 && !loadError) {
    return (
      <EmptyState title="Repositories" action={<AddRepoForm />}>
        <p>Repositories you add are indexed here: symbols, imports and git co-change history, ready for search, chat and tasks.</p>
        <p>Nothing in the folder is changed; the index lives in Clean Room&apos;s data folder.</p>
      </EmptyState>
    );
  }

  return (
    <div className="page repos-page">
      <header className="page-header">
        <h1>Repositories</h1>
        <span className="muted">{repos.length === 1 ? '1 repository' : `${repos.length} repositories`}</span>
      </header>
      <AddRepoForm />
      {loadError ? <p className="error-text" role="alert">Could not list repositories: {loadError.message}</p> : null}
      {actionError ? <p className="error-text" role="alert">{actionError.message}</p> : null}
      {repos.length > 0 ? (
        <table className="grid repo-table" aria-label="Repositories">
          <thead>
            <tr>
              <th>Repository</th>
              <th>Languages</th>
              <th className="num">Files</th>
              <th className="num">Symbols</th>
              <th>Last indexed</th>
              <th>Status</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {repos.map((repo) => (
              <RepoRow key={repo.id} repo={repo} isCurrent={repo.id === currentId} onSelect={() => selectRepo(repo.id)} />
            ))}
          </tbody>
        </table>
      ) : null}
      {current ? (
        <section className="panel repo-extra" aria-label={`Details of ${current.name}`}>
          <div className="muted">
            {current.name}:{' '}
            {[
              countOf(current.stats.references, 'reference'),
              countOf(current.stats.dependencies, 'file dependency', 'file dependencies'),
              countOf(current.stats.commits, 'commit'),
              countOf(current.stats.coChangePairs, 'co-change pair'),
              countOf(current.stats.chunks, 'search chunk'),
            ].join(' · ')}
          </div>
          {current.git === false ? (
            <p className="note" data-testid="no-git-note">
              {current.path} is not a git repository. Its files are indexed by walking the folder (honouring .gitignore), but it has no history:
              no commits per file and no co-change neighbours in search.
            </p>
          ) : null}
          {lastRun ? (
            <div className="muted" data-testid="last-index-run">
              Last index run: {formatMs(lastRun.durationMs)}, {countOf(lastRun.parsed, 'file')} parsed, {lastRun.removed.toLocaleString('en-US')} removed —{' '}
              {formatPhases(lastRun.phaseMs)}
            </div>
          ) : null}
          <SkippedList key={current.id} repoId={current.id} />
        </section>
      ) : null}
    </div>
  );
}
