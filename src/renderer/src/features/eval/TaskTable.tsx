import { useState } from 'react';
import type { EvalReport } from '../../../../shared/contract';
import { ourMethod, taskRows } from './reducers';

const rankText = (rank: number | null) => (rank === null ? '–' : `#${rank}`);

/**
 * Every task of a report: its message, each gold file with the rank our search and the BM25
 * reference gave it, and our top results (gold ones marked). Collapsible; a filter keeps the misses.
 */
export function TaskTable(props: { report: EvalReport; k: number }) {
  const { report, k } = props;
  const [onlyMisses, setOnlyMisses] = useState(false);
  const ours = ourMethod(report);
  const rows = taskRows(report, k);
  const misses = rows.filter((r) => r.isMiss).length;
  const shown = onlyMisses ? rows.filter((r) => r.isMiss) : rows;
  return (
    <details className="eval-tasks" open>
      <summary>
        Tasks ({rows.length}): where each gold file ranked, {ours} vs bm25
      </summary>
      <label className="muted eval-tasks-filter">
        <input type="checkbox" checked={onlyMisses} onChange={(e) => setOnlyMisses(e.target.checked)} /> Only misses of {ours} ({misses}: no gold file in
        the top {k})
      </label>
      <table className="grid compact eval-task-table" aria-label="Tasks">
        <thead>
          <tr>
            <th>Task</th>
            <th>
              Gold files <span className="muted">(rank by {ours} / bm25)</span>
            </th>
            <th>Top {ours} results</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((row) => (
            <tr key={row.id} className={row.isMiss ? 'eval-task miss' : 'eval-task'} data-testid="eval-task">
              <td className="eval-task-text" title={row.task}>
                <span className="mono muted">{row.id.slice(0, 10)}</span> {row.task.split('\n')[0]}
              </td>
              {row.error ? (
                <td colSpan={2} className="error-text">
                  could not run: {row.error}
                </td>
              ) : (
                <>
                  <td>
                    {row.gold.map((g) => (
                      <div key={g.path} className="mono eval-gold">
                        {g.path}{' '}
                        <span className={g.ours !== null && g.ours <= k ? 'rank hit' : 'rank'} data-testid="rank-ours">
                          {rankText(g.ours)}
                        </span>
                        {' / '}
                        <span className={g.reference !== null && g.reference <= k ? 'rank hit' : 'rank'} data-testid="rank-reference">
                          {rankText(g.reference)}
                        </span>
                      </div>
                    ))}
                  </td>
                  <td>
                    {row.top.length === 0 ? (
                      <span className="muted">nothing ranked</span>
                    ) : (
                      <ol className="mono eval-top" aria-label={`Top results for ${row.id}`}>
                        {row.top.map((t) => (
                          <li key={t.path} className={t.isGold ? 'gold' : undefined}>
                            {t.path}
                            {t.isGold ? ' ✓' : ''}
                          </li>
                        ))}
                      </ol>
                    )}
                  </td>
                </>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
