import { useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { InstalledModel } from '../../../../shared/contract';
import { formatBytes } from './reducers';
import { modelsSelectors, useModelsStore } from './store';

/** Installed models with Test and Delete (with confirmation). */
export function InstalledTable() {
  const { installed, tests, assignments } = useModelsStore(useShallow((s) => ({ installed: modelsSelectors.installed(s), tests: modelsSelectors.tests(s), assignments: modelsSelectors.assignments(s) })));
  if (installed.length === 0) return <p className="muted">No models installed yet. Pull one of the recommended models below.</p>;
  return (
    <table className="grid" aria-label="Installed models">
      <thead>
        <tr>
          <th>Name</th>
          <th>Size</th>
          <th>Family</th>
          <th>Parameters</th>
          <th>Quantization</th>
          <th>Context</th>
          <th>Loaded</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {installed.map((m) => (
          <InstalledRow key={m.name} model={m} test={tests[m.name]} usedBy={(assignments?.rows ?? []).filter((r) => r.model === m.name || `${r.model}:latest` === m.name).map((r) => r.stage)} />
        ))}
      </tbody>
    </table>
  );
}

function InstalledRow({ model: m, test, usedBy }: { model: InstalledModel; test: ReturnType<typeof modelsSelectors.tests>[string] | undefined; usedBy: string[] }) {
  const [isConfirming, setConfirming] = useState(false);
  const runTest = useModelsStore((s) => s.test);
  const remove = useModelsStore((s) => s.remove);
  return (
    <>
      <tr data-testid={`installed-${m.name}`}>
        <td className="mono">{m.name}</td>
        <td>{formatBytes(m.sizeBytes)}</td>
        <td>{m.family ?? ''}</td>
        <td>{m.parameters ?? ''}</td>
        <td>{m.quantization ?? ''}</td>
        <td>{m.contextLength?.toLocaleString() ?? ''}</td>
        <td>{m.loaded ? <span className="chip">loaded</span> : ''}</td>
        <td className="row">
          <button type="button" disabled={test?.isRunning} onClick={() => void runTest(m.name)}>
            {test?.isRunning ? 'Testing…' : 'Test'}
          </button>
          {isConfirming ? (
            <>
              <button type="button" className="danger" onClick={() => void remove(m.name)}>
                Delete {m.name}?
              </button>
              <button type="button" onClick={() => setConfirming(false)}>
                Keep
              </button>
            </>
          ) : (
            <button type="button" className="danger" onClick={() => setConfirming(true)}>
              Delete
            </button>
          )}
        </td>
      </tr>
      {isConfirming && usedBy.length ? (
        <tr>
          <td colSpan={8} className="warning-text" role="alert" data-testid={`delete-warning-${m.name}`}>
            {m.name} is assigned to {usedBy.join(', ')}: after deleting it {usedBy.length === 1 ? 'that stage has' : 'those stages have'} no working model until you assign another or set up models again.
          </td>
        </tr>
      ) : null}
      {test?.result || test?.error ? (
        <tr>
          <td colSpan={8} data-testid={`test-result-${m.name}`}>
            {test.result ? (
              <span>
                “{test.result.text}” · {test.result.promptTokens} → {test.result.completionTokens} tokens · {test.result.latencyMs} ms
              </span>
            ) : (
              <span className="error-text">{test.error?.message}</span>
            )}
          </td>
        </tr>
      ) : null}
    </>
  );
}
