import { useEffect, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { StageAssignment } from '../../../../shared/contract';
import { changedStages, modelChoices, savedDraft, type ModelChoice, type RowDraft } from './assignmentDrafts';
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
  enrich: 'Enrich',
  rerank: 'Re-rank',
};

/** One row per stage (model, context window, max tokens) and one Save for every edited row. */
export function AssignmentTable() {
  const { assignments, installed, recommended, error, isSaving } = useModelsStore(
    useShallow((s) => ({ assignments: modelsSelectors.assignments(s), installed: modelsSelectors.installed(s), recommended: modelsSelectors.recommended(s), error: modelsSelectors.errors(s).assign, isSaving: s.isAssigning })),
  );
  const assignStages = useModelsStore((s) => s.assignStages);
  const [drafts, setDrafts] = useState<Record<string, RowDraft>>({});
  useEffect(() => setDrafts({}), [assignments]);
  if (!assignments) return error ? <p className="error-text">{error.message}</p> : <p className="muted">Loading…</p>;
  const configured = [...Object.values(assignments.roles), ...assignments.rows.map((r) => r.model)];
  const changes = changedStages(assignments.rows, drafts);
  const edit = (row: StageAssignment, patch: Partial<RowDraft>) => setDrafts((d) => ({ ...d, [row.stage]: { ...(d[row.stage] ?? savedDraft(row)), ...patch } }));
  return (
    <>
      <p className="muted">
        Saved to <code>{assignments.configPath}</code>
        {assignments.configExists ? '' : ' (created with the commented defaults on the first save)'}. A stage without its own model uses its role's.
      </p>
      {error ? <p className="error-text" role="alert">{error.message}</p> : null}
      <table className="grid" aria-label="Stage assignments">
        <thead>
          <tr>
            <th>Stage</th>
            <th>Model</th>
            <th>Context window</th>
            <th>Max tokens</th>
          </tr>
        </thead>
        <tbody>
          {assignments.rows.map((row) => (
            <AssignmentRow key={row.stage} row={row} roleModel={assignments.roles[row.role] ?? null} draft={drafts[row.stage] ?? savedDraft(row)} choices={modelChoices(row.stage, installed, recommended, configured)} onEdit={(patch) => edit(row, patch)} />
          ))}
        </tbody>
      </table>
      <div className="row assign-actions">
        <button type="button" className="primary" disabled={changes.length === 0 || isSaving} onClick={() => void assignStages(changes)}>
          {isSaving ? 'Saving…' : changes.length ? `Save ${changes.length} ${changes.length === 1 ? 'change' : 'changes'}` : 'Save'}
        </button>
        {changes.length ? (
          <button type="button" onClick={() => setDrafts({})}>
            Discard
          </button>
        ) : (
          <span className="muted small">Nothing to save.</span>
        )}
      </div>
    </>
  );
}

function AssignmentRow({ row, roleModel, draft, choices, onEdit }: { row: StageAssignment; roleModel: string | null; draft: RowDraft; choices: ModelChoice[]; onEdit(patch: Partial<RowDraft>): void }) {
  const label = STAGE_LABEL[row.stage] ?? row.stage;
  const roleDefault = `${row.role} default (${roleModel ?? 'none'})`;
  return (
    <tr data-testid={`assign-${row.stage}`}>
      <td>{label}</td>
      <td>
        <select aria-label={`Model for ${label}`} value={draft.model} onChange={(e) => onEdit({ model: e.target.value })}>
          <option value="">{roleDefault}</option>
          {choices.map((c) => (
            <option key={c.name} value={c.name}>
              {c.note ? `${c.name} — ${c.note}` : c.name}
            </option>
          ))}
        </select>
      </td>
      <td>
        <input aria-label={`Context window for ${row.stage}`} inputMode="numeric" size={7} placeholder={String(row.contextWindow ?? '')} value={draft.contextWindow} disabled={!draft.model} onChange={(e) => onEdit({ contextWindow: e.target.value.replace(/\D/g, '') })} />
      </td>
      <td>
        <input aria-label={`Max tokens for ${row.stage}`} inputMode="numeric" size={6} placeholder={String(row.maxTokens ?? '')} value={draft.maxTokens} disabled={!draft.model} onChange={(e) => onEdit({ maxTokens: e.target.value.replace(/\D/g, '') })} />
      </td>
    </tr>
  );
}
