import { useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { MODEL_STAGES, StageAssignment } from '../../../../shared/contract';
import { modelsSelectors, useModelsStore } from './store';

const STAGE_LABEL: Record<string, string> = {
  task_analysis: 'Task analysis',
  scope: 'Scope',
  precision: 'Precision',
  similarity: 'Similarity',
  routing: 'Routing',
  plan: 'Plan',
  execute: 'Execute',
  chat: 'Chat',
  summarize: 'Summarize',
  embedding: 'Embedding',
};

/** One row per stage: a model picker, context window and max tokens, saved to the config. */
export function AssignmentTable() {
  const { assignments, installed, error } = useModelsStore(useShallow((s) => ({ assignments: modelsSelectors.assignments(s), installed: modelsSelectors.installed(s), error: modelsSelectors.errors(s).assign })));
  if (!assignments) return error ? <p className="error-text">{error.message}</p> : <p className="muted">Loading…</p>;
  const names = installed.map((m) => m.name);
  return (
    <>
      <p className="muted">
        Saved to <code>{assignments.configPath}</code>
        {assignments.configExists ? '' : ' (created with the commented defaults on the first save)'}.
      </p>
      {error ? <p className="error-text">{error.message}</p> : null}
      <table className="grid" aria-label="Stage assignments">
        <thead>
          <tr>
            <th>Stage</th>
            <th>Model</th>
            <th>Context window</th>
            <th>Max tokens</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {assignments.rows.map((row) => (
            <AssignmentRow key={`${row.stage}:${row.model}:${row.contextWindow}:${row.maxTokens}`} row={row} names={names} />
          ))}
        </tbody>
      </table>
    </>
  );
}

function AssignmentRow({ row, names }: { row: StageAssignment; names: string[] }) {
  const assign = useModelsStore((s) => s.assign);
  const [model, setModel] = useState(row.source === 'override' ? (row.model ?? '') : '');
  const [ctx, setCtx] = useState(row.source === 'override' && row.contextWindow ? String(row.contextWindow) : '');
  const [max, setMax] = useState(row.source === 'override' && row.maxTokens ? String(row.maxTokens) : '');
  const options = [...new Set([...names, ...(row.model ? [row.model] : [])])];
  const roleDefault = row.source === 'role' ? `${row.role} default (${row.model})` : `${row.role} default (none)`;
  const save = () =>
    void assign({
      stage: row.stage as (typeof MODEL_STAGES)[number],
      model: model || null,
      ...(model && ctx ? { contextWindow: Number(ctx) } : {}),
      ...(model && max ? { maxTokens: Number(max) } : {}),
    });
  return (
    <tr data-testid={`assign-${row.stage}`}>
      <td>{STAGE_LABEL[row.stage] ?? row.stage}</td>
      <td>
        <select aria-label={`Model for ${STAGE_LABEL[row.stage] ?? row.stage}`} value={model} onChange={(e) => setModel(e.target.value)}>
          <option value="">{roleDefault}</option>
          {options.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </td>
      <td>
        <input aria-label={`Context window for ${row.stage}`} inputMode="numeric" size={7} placeholder={String(row.contextWindow ?? '')} value={ctx} disabled={!model} onChange={(e) => setCtx(e.target.value.replace(/\D/g, ''))} />
      </td>
      <td>
        <input aria-label={`Max tokens for ${row.stage}`} inputMode="numeric" size={6} placeholder={String(row.maxTokens ?? '')} value={max} disabled={!model} onChange={(e) => setMax(e.target.value.replace(/\D/g, ''))} />
      </td>
      <td>
        <button type="button" onClick={save}>
          Save
        </button>
      </td>
    </tr>
  );
}
