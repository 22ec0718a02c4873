import { useState } from 'react';
import { useRunsStore } from '../runs/store';
import { reposSelectors, useReposStore } from './store';

/**
 * "Add repository": the native folder picker where the host has one (Electron), otherwise a path
 * field (browser) that takes an absolute path or `~/…`. The engine's error (no such folder, a relative
 * path, not a directory, unreadable) shows inline; a folder already added is selected and said so.
 */
export function AddRepoForm() {
  const canPick = useRunsStore((s) => s.info?.canPickFolder ?? false);
  const isAdding = useReposStore(reposSelectors.isAdding);
  const error = useReposStore(reposSelectors.error('add'));
  const add = useReposStore((s) => s.add);
  const pickAndAdd = useReposStore((s) => s.pickAndAdd);
  const notice = useReposStore(reposSelectors.addNotice);
  const confirm = useReposStore(reposSelectors.confirmAdd);
  const [path, setPath] = useState('');

  if (canPick) {
    return (
      <div className="add-repo">
        <button type="button" className="primary" disabled={isAdding} onClick={() => void pickAndAdd()}>
          Add repository…
        </button>
        {error ? <p className="error-text" role="alert">{error.message}</p> : null}
        {notice ? <p className="muted" role="status">{notice.message}</p> : null}
        {confirm ? <ConfirmLargeFolder confirm={confirm} /> : null}
      </div>
    );
  }

  return (
    <form
      className="add-repo"
      aria-label="Add repository"
      onSubmit={(event) => {
        event.preventDefault();
        if (!path.trim()) return;
        void add(path).then((isAdded) => {
          if (isAdded) setPath('');
        });
      }}
    >
      <div className="row">
        <input
          className="grow mono"
          aria-label="Repository folder path"
          placeholder="/path/to/a/repository"
          value={path}
          spellCheck={false}
          onChange={(event) => setPath(event.target.value)}
        />
        <button type="submit" className="primary" disabled={isAdding || !path.trim()}>
          {isAdding ? 'Adding…' : 'Add repository'}
        </button>
      </div>
      {error ? (
        <p className="error-text" role="alert">
          {error.message}
        </p>
      ) : null}
      {notice ? (
        <p className="muted" role="status" data-testid="add-notice">
          {notice.message}
        </p>
      ) : null}
      {confirm ? <ConfirmLargeFolder confirm={confirm} onAdded={() => setPath('')} /> : null}
    </form>
  );
}

/** "Index anyway?" for a large folder that is not a git repository (a home folder, a downloads folder). */
function ConfirmLargeFolder(props: { confirm: { path: string; files: number; capped: boolean }; onAdded?(): void }) {
  const { confirm } = props;
  const { add, cancelAdd } = useReposStore.getState();
  const count = `${confirm.capped ? 'more than ' : ''}${confirm.files.toLocaleString('en')} files`;
  return (
    <div className="confirm confirm-large panel" role="alertdialog" aria-label="Index a large folder?">
      <span className="grow">
        <span className="mono">{confirm.path}</span> is not a git repository and holds {count}. Indexing it all can take a long time and a lot of disk. Choose
        a project folder inside it, or index it anyway (you can cancel while it runs).
      </span>
      <button
        type="button"
        className="primary"
        onClick={() =>
          void add(confirm.path, { confirmed: true }).then((isAdded) => {
            if (isAdded) props.onAdded?.();
          })
        }
      >
        Index {count}
      </button>
      <button type="button" onClick={cancelAdd}>
        Don&apos;t index
      </button>
    </div>
  );
}
