import type { Reason } from '../../../../shared/contract/reasons';
import type { KnowledgeBase } from '../../../knowledge/kb/knowledgeBase';
import type { LlmClient } from '../../../platform/llm/client';
import { runSelection } from '../batched';
import { buildPackage } from '../package';
import type { ContextFile, RetrievalStage, StageContext } from '../stage';
import type { TaskRecord } from '../taskAnalysis';
import { isSeedTier } from './scope';

const SYSTEM =
  'You fit the context for a coding task into a token budget. Files marked "always kept" are in already. Choose which of the other files to keep so that their tokens together stay within the tokens left, preferring what the task needs most. Reply with one JSON object only: {"keep": [paths]}.';

/** Tokens each file takes in a package with room for everything (its header and items). */
function fileCosts(context: StageContext, task: TaskRecord, readSource: (path: string) => string | null): Map<string, number> {
  const roomy = buildPackage({ task, files: context.files, budgetTokens: Number.MAX_SAFE_INTEGER, readSource, ...(context.safetyMargin !== undefined ? { safetyMargin: context.safetyMargin } : {}) });
  return new Map(roomy.files.map((f) => [f.path, f.headerTokens + f.items.reduce((n, i) => n + i.tokens, 0)]));
}

/**
 * The over-budget re-filter: when the files would not fit the budget whole (the package would
 * demote or drop something), one batched call (not binary: keeping one file decides whether
 * another fits) chooses which non-seed files to keep within the tokens the seeds leave. Tier 0
 * and 1 files are always kept. A choice still over the budget loses its lowest-priority files
 * until it fits; an unreadable reply or a failed call keeps every file (the package then evicts
 * by priority), said so in the log. Each file's outcome is a decision of stage refilter.
 */
export class RefilterStage implements RetrievalStage {
  readonly name = 'refilter';

  /** Do nothing when everything fits; else ask once and keep the chosen files. */
  async run(context: StageContext, _kb: KnowledgeBase, task: TaskRecord, llm: LlmClient): Promise<StageContext> {
    const readSource = context.readSource;
    if (!readSource) throw new Error('The refilter stage needs the context to read sources (PipelineInput.readSource).');
    const margin = context.safetyMargin !== undefined ? { safetyMargin: context.safetyMargin } : {};
    const tight = buildPackage({ task, files: context.files, budgetTokens: context.budget.tokens, readSource, ...margin });
    const demoted = tight.files.some((f) => f.items.some((i) => i.reasons.some((r) => r.kind === 'demoted')));
    if (tight.dropped.length === 0 && !demoted) return { ...context, decisions: [] };
    // Costs as the kept files will be rendered: with the re-filter's reason in their header.
    const model = llm.resolve({ stage: 'refilter' }).model;
    const withReason = (f: ContextFile): ContextFile => (isSeedTier(f.tier) ? f : { ...f, reasons: [...f.reasons, { kind: 'refilter', detail: { kept: true, model } }] });
    const costs = fileCosts({ ...context, files: context.files.map(withReason) }, task, readSource);
    const cost = (f: ContextFile) => costs.get(f.path) ?? 0;
    const fixed = context.files.filter((f) => isSeedTier(f.tier));
    const optional = context.files.filter((f) => !isSeedTier(f.tier));
    const headerTokens = tight.budget.used - tight.files.reduce((n, f) => n + f.headerTokens + f.items.reduce((m, i) => m + i.tokens, 0), 0);
    const left = Math.max(0, context.budget.tokens - headerTokens - fixed.reduce((n, f) => n + cost(f), 0));
    const line = (f: ContextFile, note = '') => `- ${f.path} (tier ${f.tier}, ${cost(f)} tokens)${note}`;
    const prompt = [`Task:\n${task.text}`, `Tokens left for the other files: ${left}`, 'Always kept:', ...fixed.map((f) => line(f)), 'Choose from:', ...optional.map((f) => line(f))].join('\n');
    const sel = await runSelection({ llm, stage: 'refilter', system: SYSTEM, prompt, offered: optional.map((f) => f.path), key: 'keep', runId: context.runId, ...(context.log ? { log: context.log } : {}), ...(context.signal ? { signal: context.signal } : {}) });
    const call = sel.callId !== undefined ? { modelCallId: sel.callId } : {};
    const decisions: StageContext['decisions'] = [];
    if (!sel.picked) {
      for (const f of optional) decisions.push({ subjectKind: 'file', subject: f.path, tier: String(f.tier), decision: 'kept', reasons: [{ kind: 'refilter', detail: { kept: true, model: sel.model, fallback: true } }], judgment: { problem: sel.problem }, ...call });
      return { ...context, decisions };
    }
    const picked = new Set(sel.picked);
    // The choice in priority order; past the tokens left, the lowest-priority choices go.
    const chosen = optional.filter((f) => picked.has(f.path));
    let total = chosen.reduce((n, f) => n + cost(f), 0);
    const evicted = new Set<string>();
    for (let i = chosen.length - 1; i >= 0 && total > left; i--) {
      const f = chosen[i] as ContextFile;
      evicted.add(f.path);
      total -= cost(f);
    }
    const keep = (f: ContextFile) => isSeedTier(f.tier) || (picked.has(f.path) && !evicted.has(f.path));
    for (const f of optional) {
      const reason: Reason = { kind: 'refilter', detail: { kept: picked.has(f.path), model } };
      const decision = evicted.has(f.path) ? 'evicted' : picked.has(f.path) ? 'kept' : 'dropped';
      decisions.push({ subjectKind: 'file', subject: f.path, tier: String(f.tier), decision, reasons: evicted.has(f.path) ? [reason, { kind: 'over-budget', detail: { tokens: cost(f), left } }] : [reason], judgment: { tokens: cost(f), left, ...(sel.unknown.length ? { unknown: sel.unknown } : {}) }, ...call });
    }
    const files = context.files.filter(keep).map(withReason);
    return { ...context, files, ...(context.groups ? { groups: context.groups.map((g) => g.filter((p) => files.some((f) => f.path === p))).filter((g) => g.length > 1) } : {}), decisions };
  }
}
