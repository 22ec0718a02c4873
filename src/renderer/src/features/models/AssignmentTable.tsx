import { useEffect, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ModelCheckResult, StageAssignment } from '../../../../shared/contract';
import { changedStages, modelChoices, recommendedDrafts, savedDraft, type ModelChoice, type RowDraft } from './assignmentDrafts';
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
  const { assignments, installed, recommended, error, isSaving, plan, checks, provider } = useModelsStore(
    useShallow((s) => ({
      assignments: modelsSelectors.assignments(s),
      installed: modelsSelectors.installed(s),
      recommended: modelsSelectors.recommended(s),
      error: modelsSelectors.errors(s).assign,
      isSaving: s.isAssigning,
      plan: modelsSelectors.setupPlan(s),
      checks: modelsSelectors.checks(s),
      provider: s.status?.provider,
    })),
  );
  // Ollama's tags mean nothing to the built-in runtime: its pickers offer its own models only.
  const offered = provider === 'builtin' ? [] : recommended;
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
            <th>On this repository</th>
          </tr>
        </thead>
        <tbody>
          {assignments.rows.map((row) => (
            <AssignmentRow key={row.stage} row={row} roleModel={assignments.roles[row.role] ?? null} draft={drafts[row.stage] ?? savedDraft(row)} choices={withDraft(modelChoices(row.stage, installed, offered, configured), drafts[row.stage]?.model)} check={checks.find((c) => c.stage === row.stage && c.model === row.model)} onEdit={(patch) => edit(row, patch)} />
          ))}
        </tbody>
      </table>
      <div className="row assign-actions">
        <button type="button" disabled={!plan?.models.length} title={plan?.models.length ? 'Fill every stage with the model proposed for this machine; Save writes it' : 'No proposal for this machine (see Set up models)'} onClick={() => plan && setDrafts(recommendedDrafts(assignments.rows, plan))}>
          Use recommended
        </button>
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

/** The choices plus a drafted model they lack (Use recommended names models not downloaded yet). */
function withDraft(choices: ModelChoice[], model: string | undefined): ModelChoice[] {
  return model && !choices.some((c) => c.name === model) ? [...choices, { name: model, note: 'recommended, not on this machine yet' }] : choices;
}

/** "92% right · balanced 88% · AUC 0.93" — the stage's model on the current repository's history. */
function checkText(c: ModelCheckResult): string {
  if (c.note) return c.note;
  const pct = (x: number | null) => (x === null ? '—' : `${Math.round(x * 100)}%`);
  if (c.stage === 'plan') return `${pct(c.validPlanRate ?? null)} valid plans of ${c.n} tasks · ${c.p50LatencyMs} ms`;
  return `${pct(c.accuracy)} right · balanced ${pct(c.balancedAccuracy)}${c.auc === null ? '' : ` · AUC ${c.auc.toFixed(2)}`}${c.unusableRate ? ` · ${pct(c.unusableRate)} unusable` : ''} · ${c.p50LatencyMs} ms`;
}

function AssignmentRow({ row, roleModel, draft, choices, check, onEdit }: { row: StageAssignment; roleModel: string | null; draft: RowDraft; choices: ModelChoice[]; check: ModelCheckResult | undefined; onEdit(patch: Partial<RowDraft>): void }) {
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
      <td className="small" data-testid={`check-${row.stage}`}>
        {check ? <span title={`${check.n} judgments from this repository's history, ${new Date(check.checkedAt).toLocaleString()}`}>{checkText(check)}</span> : null}
      </td>
    </tr>
  );
}
