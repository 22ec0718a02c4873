import type { KnowledgeBase } from '../../../knowledge/kb/knowledgeBase';
import type { LlmClient } from '../../../platform/llm/client';
import { runSelection } from '../batched';
import type { RetrievalStage, StageContext } from '../stage';
import type { TaskRecord } from '../taskAnalysis';

/** What each stage routing may choose does, in the words the model sees. */
export const ROUTABLE_STAGES: Record<string, string> = {
  precision: 'picks the functions and classes of the chosen files and how much of each to show (needed when the files are large or the task is about particular functions)',
  similarity: 'groups the chosen files that belong together (useful when many files were chosen)',
};

const SYSTEM = 'You choose which optional retrieval stages to run for a coding task. Reply with one JSON object only: {"stages": [the names of the stages this task needs]}. Use [] when none is needed.';

/**
 * Routing: one batched call (not binary — a set selection) that picks which of the stages after
 * it in the list run. Only optional stages are offered (precision, similarity); scope and the
 * re-filter always run. Stages not picked are skipped by the runner; a reply that cannot be read
 * (or a failed call) runs every stage the caller listed — routing can only narrow the caller's
 * list — and says so in the log.
 */
export class RoutingStage implements RetrievalStage {
  readonly name = 'routing';
  /** `following`: the names of the stages after routing in the list. */
  constructor(private readonly following: readonly string[]) {}

  /** Ask once, then mark the stages to skip. */
  async run(context: StageContext, _kb: KnowledgeBase, task: TaskRecord, llm: LlmClient): Promise<StageContext> {
    const offered = this.following.filter((n) => n in ROUTABLE_STAGES);
    if (offered.length === 0) return { ...context, decisions: [] };
    const prompt = `Task:\n${task.text}\n\nOptional stages:\n${offered.map((n) => `- ${n}: ${ROUTABLE_STAGES[n]}`).join('\n')}`;
    const sel = await runSelection({ llm, stage: 'routing', system: SYSTEM, prompt, offered, key: 'stages', runId: context.runId, ...(context.log ? { log: context.log } : {}), ...(context.signal ? { signal: context.signal } : {}) });
    const run = new Set(sel.picked ?? offered);
    const facts = { model: sel.model, ...(sel.picked ? {} : { fallback: true, problem: sel.problem }), ...(sel.unknown.length ? { unknown: sel.unknown } : {}), promptTokens: sel.promptTokens, completionTokens: sel.completionTokens };
    const call = sel.callId !== undefined ? { modelCallId: sel.callId } : {};
    const decisions: StageContext['decisions'] = offered.map((n) => ({ subjectKind: 'stage', subject: n, decision: run.has(n) ? 'run' : 'skip', reasons: [], judgment: facts, ...call }));
    return { ...context, skipStages: [...(context.skipStages ?? []), ...offered.filter((n) => !run.has(n))], decisions };
  }
}
