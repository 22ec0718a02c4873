import { useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ModelFit, RecommendedModel } from '../../../../shared/contract';
import { PullBar } from './PullBar';
import { formatBytes } from './reducers';
import { modelsSelectors, useModelsStore } from './store';

const FIT_TEXT: Record<ModelFit, string> = { fits: 'fits alone', tight: 'tight alone', too_large: 'too large for this machine' };

/** "Beside qwen3:4b, nomic-embed-text: 6.1 GB together" — the memory the stages would hold at once. */
function alongsideText(r: RecommendedModel): string {
  if (!r.alongside || r.alongside.models.length === 0) return 'no other model assigned';
  const fit = r.alongside.fit === 'fits' ? 'fits' : r.alongside.fit === 'tight' ? 'tight' : 'does not fit';
  return `${fit} beside ${r.alongside.models.join(', ')} (${formatBytes(r.alongside.memoryBytes)} together)`;
}

/**
 * Recommended models per pipeline role: download size, memory it needs, whether that is free now
 * and whether it fits beside the models assigned to the other stages, and Pull (disabled with the
 * reason when no server can take a pull); plus pull-by-name.
 */
export function RecommendedList({ pullBlockedBy }: { pullBlockedBy: string | null }) {
  const { recommended, pulls, total, free } = useModelsStore(
    useShallow((s) => ({ recommended: modelsSelectors.recommended(s), pulls: modelsSelectors.pulls(s), total: modelsSelectors.totalMemoryBytes(s), free: modelsSelectors.freeMemoryBytes(s) })),
  );
  const canPull = pullBlockedBy === null;
  const pull = useModelsStore((s) => s.pull);
  const [name, setName] = useState('');
  const others = Object.values(pulls).filter((p) => !recommended.some((r) => r.name === p.model));
  return (
    <>
      <p className="muted" data-testid="memory-summary">
        This machine has {formatBytes(total)} of memory{free !== null ? `, ${formatBytes(free)} free now` : ''}. "Fit" compares one model with the total; "beside the
        assigned" adds the models the other stages use, which the pipeline keeps loaded together.
      </p>
      {pullBlockedBy ? (
        <p className="muted" data-testid="pull-blocked">
          Pull is unavailable: {pullBlockedBy}
        </p>
      ) : null}
      <table className="grid" aria-label="Recommended models">
        <thead>
          <tr>
            <th>Model</th>
            <th>For</th>
            <th>Download</th>
            <th>Memory</th>
            <th>Fit</th>
            <th>Beside the assigned</th>
            <th style={{ width: '30%' }} />
          </tr>
        </thead>
        <tbody>
          {recommended.map((r) => {
            const p = pulls[r.name];
            return (
              <tr key={r.name} data-testid={`recommended-${r.name}`}>
                <td className="mono">{r.name}</td>
                <td>{r.purpose}</td>
                <td>{formatBytes(r.downloadBytes)}</td>
                <td>
                  {formatBytes(r.memoryBytes)}
                  {r.fitsFreeNow === false ? <div className="muted small">more than is free now</div> : null}
                </td>
                <td>
                  <span className={`chip fit-${r.fit}`}>{FIT_TEXT[r.fit]}</span>
                </td>
                <td className={`small fit-text-${r.alongside?.fit ?? 'fits'}`}>{alongsideText(r)}</td>
                <td>
                  {p && p.status !== 'done' ? (
                    <PullBar pull={p} />
                  ) : r.installed || p?.status === 'done' ? (
                    <span className="muted">installed</span>
                  ) : (
                    <button type="button" className="primary" disabled={!canPull} title={pullBlockedBy ?? undefined} onClick={() => void pull(r.name)}>
                      Pull
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          if (name.trim()) void pull(name.trim());
          setName('');
        }}
      >
        <input aria-label="Model name to pull" placeholder="any model, e.g. llama3.2:1b" value={name} onChange={(e) => setName(e.target.value)} />
        <button type="submit" disabled={!canPull || !name.trim()} title={pullBlockedBy ?? (name.trim() ? undefined : 'Type a model name first')}>
          Pull
        </button>
      </form>
      {others.map((p) => (
        <div key={p.model} className="row">
          <span className="mono">{p.model}</span>
          <div className="grow">
            <PullBar pull={p} />
          </div>
        </div>
      ))}
    </>
  );
}
