import type { InstalledModel, MODEL_STAGES, RecommendedModel, StageAssignment } from '../../../../shared/contract';

/** What a row of the assignment table holds while being edited (strings, as typed). */
export interface RowDraft {
  model: string;
  contextWindow: string;
  maxTokens: string;
}

/** One change for models/assignStages. */
export interface StageChange {
  stage: (typeof MODEL_STAGES)[number];
  model: string | null;
  contextWindow?: number;
  maxTokens?: number;
}

/** One choice of the model picker: installed models first, then recommended ones not yet installed, then configured names. */
export interface ModelChoice {
  name: string;
  note: string;
}

/** The row as saved: the override's values, or empty when the stage follows its role. */
export function savedDraft(row: StageAssignment): RowDraft {
  const isOverride = row.source === 'override';
  return {
    model: isOverride ? (row.model ?? '') : '',
    contextWindow: isOverride && row.contextWindow ? String(row.contextWindow) : '',
    maxTokens: isOverride && row.maxTokens ? String(row.maxTokens) : '',
  };
}

/**
 * The models a stage can be given: installed ones, the recommended ones (so a judge such as
 * qwen3:0.6b can be chosen before it is written anywhere; not installed ones say so), and any name
 * the config already uses. Recommended models made for this stage come first among the others.
 */
export function modelChoices(stage: string, installed: readonly InstalledModel[], recommended: readonly RecommendedModel[], configured: readonly (string | null)[]): ModelChoice[] {
  const out: ModelChoice[] = [];
  const has = (name: string) => out.some((c) => c.name === name);
  for (const m of installed) out.push({ name: m.name, note: '' });
  const forStage = [...recommended].sort((a, b) => Number(b.stages.includes(stage)) - Number(a.stages.includes(stage)));
  for (const r of forStage) {
    if (has(r.name) || has(`${r.name}:latest`)) continue;
    out.push({ name: r.name, note: r.stages.includes(stage) ? 'recommended here, not installed' : 'not installed' });
  }
  for (const name of configured) if (name && !has(name)) out.push({ name, note: 'in the config, not installed' });
  return out;
}

/** The changes to save: rows whose draft differs from what is saved, as models/assignStages wants them. */
export function changedStages(rows: readonly StageAssignment[], drafts: Readonly<Record<string, RowDraft>>): StageChange[] {
  const changes: StageChange[] = [];
  for (const row of rows) {
    const draft = drafts[row.stage];
    if (!draft) continue;
    const saved = savedDraft(row);
    if (draft.model === saved.model && draft.contextWindow === saved.contextWindow && draft.maxTokens === saved.maxTokens) continue;
    const stage = row.stage as StageChange['stage'];
    if (!draft.model) {
      changes.push({ stage, model: null });
      continue;
    }
    changes.push({
      stage,
      model: draft.model,
      ...(draft.contextWindow ? { contextWindow: Number(draft.contextWindow) } : {}),
      ...(draft.maxTokens ? { maxTokens: Number(draft.maxTokens) } : {}),
    });
  }
  return changes;
}
