import { useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ModelFit } from '../../../../shared/contract';
import { PullBar } from './PullBar';
import { formatBytes } from './reducers';
import { modelsSelectors, useModelsStore } from './store';

const FIT_TEXT: Record<ModelFit, string> = { fits: 'fits in memory', tight: 'tight', too_large: 'too large for this machine' };

/** Recommended models per pipeline role, with download size, fit hint and Pull; plus pull-by-name. */
export function RecommendedList({ canPull }: { canPull: boolean }) {
  const { recommended, pulls, total } = useModelsStore(useShallow((s) => ({ recommended: modelsSelectors.recommended(s), pulls: modelsSelectors.pulls(s), total: modelsSelectors.totalMemoryBytes(s) })));
  const pull = useModelsStore((s) => s.pull);
  const [name, setName] = useState('');
  const others = Object.values(pulls).filter((p) => !recommended.some((r) => r.name === p.model));
  return (
    <>
      <p className="muted">Fit hints compare each model with this machine's {formatBytes(total)} of memory.</p>
      <table className="grid" aria-label="Recommended models">
        <thead>
          <tr>
            <th>Model</th>
            <th>For</th>
            <th>Download</th>
            <th>Fit</th>
            <th style={{ width: '40%' }} />
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
                  <span className={`chip fit-${r.fit}`}>{FIT_TEXT[r.fit]}</span>
                </td>
                <td>
                  {p && p.status !== 'done' ? (
                    <PullBar pull={p} />
                  ) : r.installed || p?.status === 'done' ? (
                    <span className="muted">installed</span>
                  ) : (
                    <button type="button" className="primary" disabled={!canPull} onClick={() => void pull(r.name)}>
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
        <button type="submit" disabled={!canPull || !name.trim()}>
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
