import type { InstalledModel, MODEL_STAGES, ModelSetupPlan, RecommendedModel, StageAssignment } from '../../../../shared/contract';
import { capabilityOfName, stageCapability } from '../../../../shared/contract/models';

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
 * The models a stage can be given — only those that can do it (an embedding model for the
 * embedding stage, a generation model for every other): installed ones, the recommended ones (so a judge such as
 * qwen3:0.6b can be chosen before it is written anywhere; not installed ones say so), and any name
 * the config already uses. Recommended models made for this stage come first among the others.
 */
export function modelChoices(stage: string, installed: readonly InstalledModel[], recommended: readonly RecommendedModel[], configured: readonly (string | null)[]): ModelChoice[] {
  const out: ModelChoice[] = [];
  const has = (name: string) => out.some((c) => c.name === name);
  const wanted = stageCapability(stage);
  for (const m of installed) if ((m.capability ?? capabilityOfName(m.name)) === wanted) out.push({ name: m.name, note: '' });
  const able = recommended.filter((r) => (r.stages.includes('embedding') ? 'embed' : 'generate') === wanted);
  const forStage = [...able].sort((a, b) => Number(b.stages.includes(stage)) - Number(a.stages.includes(stage)));
  for (const r of forStage) {
    if (has(r.name) || has(`${r.name}:latest`)) continue;
    out.push({ name: r.name, note: r.stages.includes(stage) ? 'recommended here, not installed' : 'not installed' });
  }
  for (const name of configured) if (name && !has(name) && capabilityOfName(name) === wanted) out.push({ name, note: 'in the config, not installed' });
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

/** Drafts that give every stage the setup proposal's model ("Use recommended"); the rows it does not name keep theirs. */
export function recommendedDrafts(rows: readonly StageAssignment[], plan: ModelSetupPlan): Record<string, RowDraft> {
  const drafts: Record<string, RowDraft> = {};
  for (const row of rows) {
    const m = plan.models.find((x) => x.stages.includes(row.stage));
    if (m) drafts[row.stage] = { model: m.name, contextWindow: m.contextWindow ? String(m.contextWindow) : '', maxTokens: '' };
  }
  return drafts;
}
