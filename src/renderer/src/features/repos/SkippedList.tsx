import { formatBytes } from '../../../../shared/format';
import { useEffect, useState } from 'react';
import { reposSelectors, useReposStore } from './store';

/** Files recorded but not parsed, with why; loaded when opened. */
export function SkippedList(props: { repoId: string }) {
  const [isOpen, setOpen] = useState(false);
  const files = useReposStore(reposSelectors.skipped(props.repoId));
  const error = useReposStore(reposSelectors.error('skipped'));
  const loadSkipped = useReposStore((s) => s.loadSkipped);
  // Asked for when opened, and again when a finished index made the loaded list stale.
  useEffect(() => {
    if (isOpen && !files) void loadSkipped(props.repoId);
  }, [isOpen, files, loadSkipped, props.repoId]);
  return (
    <details
      className="skipped"
      open={isOpen}
      onToggle={(event) => {
        const open = (event.currentTarget as HTMLDetailsElement).open;
        setOpen(open);
      }}
    >
      <summary>Skipped files{files ? ` (${files.length})` : ''}</summary>
      {error ? <p className="error-text">{error.message}</p> : null}
      {isOpen && !files && !error ? <p className="muted">Loading…</p> : null}
      {files && files.length === 0 ? <p className="muted">Every file was indexed.</p> : null}
      {files && files.length > 0 ? (
        <table className="grid compact">
          <thead>
            <tr>
              <th>Path</th>
              <th>Reason</th>
              <th className="num">Size</th>
            </tr>
          </thead>
          <tbody>
            {files.map((f) => (
              <tr key={f.path}>
                <td className="mono">{f.path}</td>
                <td>
                  <span className="chip">{f.reason}</span>
                </td>
                <td className="num mono">{formatBytes(f.size)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </details>
  );
}
