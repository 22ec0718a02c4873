import type { ChatMessage, ChatTrace } from '../../../shared/contract/chat';
import { throwIfAborted } from '../../platform/runtime/runs';
import { TurnCalls } from './calls';
import { parseCitations } from './citations';
import { AnswerCap, cutNote, DEFAULT_MAX_ANSWER_KB, DEFAULT_MAX_MODEL_CALLS, loopError } from './limits';
import { nextStep, type PipelineStep } from './pipeline';
import { FALLBACK_MODE } from './router';
import { TurnActions, type TurnState } from './turnActions';
import type { TurnDeps, TurnInput } from './turnTypes';

/*
 * One chat turn run from a pipeline (docs/design.md, Chat pipelines): the steps of the pipeline's
 * graph from `entry_step_id`, each an action that ends in an outcome which picks the next step,
 * until `finalize`. The actions are in turnActions.ts; this file runs them, keeps the trace and
 * stores the turn. Sources reach the person before the first answer token (`chat/sources`), again
 * for each follow-up round; answer tokens stream as `chat/token`; `chat/done` carries the stored
 * answer with its citations and the whole trace. What is shown and stored is cut at
 * [chat].max_answer_kb, with a note; the model calls of the question stop at [chat].max_model_calls.
 */

/** Steps one turn may take before the run stops as a bug (a loop the loop guard does not bound). */
const MAX_STEPS = 200;

export type { TurnDeps, TurnInput } from './turnTypes';

export { ANSWER_SYSTEM, answerPrompt } from './prompts';

/**
 * Run one chat turn: store the question, walk the pipeline, store the answer and emit `chat/done`.
 * A failed or stopped turn is stored and reported too (with what streamed so far), then the error
 * is rethrown so the run ends failed or cancelled.
 */
export async function runChatTurn(deps: TurnDeps, input: TurnInput): Promise<ChatMessage> {
  const { runId, repoId, conversationId, signal } = input;
  const asked = deps.store.append({ conversationId, role: 'user', content: input.question, runId });
  const maxCalls = deps.limits?.maxModelCalls ?? DEFAULT_MAX_MODEL_CALLS;
  const calls = new TurnCalls(deps, maxCalls);
  const cap = new AnswerCap(deps.limits?.maxAnswerKb ?? DEFAULT_MAX_ANSWER_KB);
  const state: TurnState = { questionId: asked.id, question: input.question, steps: [], rounds: [], requests: [], notes: [], answer: '', shown: '', pool: [], evidence: [], sourcesRound: -1, cap };
  const emit = {
    sources: (round: number) => {
      deps.events.emit('chat/sources', { runId, repoId, conversationId, sources: sourcesOf(state), trace: traceOf(deps, state, calls), ...(round > 0 ? { round } : {}) });
    },
    token: (delta: string) => {
      const wasCut = cap.cut;
      let text = cap.take(delta);
      if (cap.cut && !wasCut) text += cutNote(cap.maxKb);
      if (!text) return;
      state.shown += text;
      deps.events.emit('chat/token', { runId, conversationId, text });
    },
  };
  const actions = new TurnActions(deps, input, state, calls, emit);
  const finish = (status: 'done' | 'failed' | 'cancelled', error?: string): ChatMessage => {
    if (cap.cut) state.notes.push(`The answer was cut at ${cap.maxKb} KB ([chat].max_answer_kb): ${Math.ceil(cap.dropped / 1024)} KB more were left out.`);
    if (calls.exhausted && status === 'done') state.notes.push(`A model call was refused: the question used its budget of ${maxCalls} model calls ([chat].max_model_calls).`);
    const content = state.shown.trim();
    const sources = sourcesOf(state);
    const citations = parseCitations(content, sources, deps.kb);
    const message = deps.store.append({ conversationId, role: 'assistant', content, runId, sources, citations, trace: traceOf(deps, state, calls), status, ...(error ? { error } : {}) });
    deps.events.emit('chat/done', { runId, repoId, conversationId, message });
    return message;
  };
  let stepId: string | undefined = deps.pipeline.settings.entry_step_id;
  try {
    for (let taken = 0; stepId !== undefined; taken++) {
      if (taken >= MAX_STEPS) throw new Error(loopError(deps.pipeline, state.steps, `took more than ${MAX_STEPS} steps for one question`, 'This is a bug: report it with the pipeline file'));
      throwIfAborted(signal);
      const step: PipelineStep = deps.pipeline.steps.get(stepId)!;
      const started = performance.now();
      const outcome = await actions.run(step.action);
      state.steps.push({ id: step.id, action: step.action, outcome, ms: Math.round((performance.now() - started) * 10) / 10 });
      stepId = step.action === 'finalize' ? undefined : nextStep(step, outcome);
    }
  } catch (error) {
    if (calls.exhausted && !signal.aborted) {
      // The refused call may have been swallowed by a helper step; the budget is why the turn ended.
      const steps = stepId !== undefined ? [...state.steps, { id: stepId }] : state.steps;
      const budget = new Error(loopError(deps.pipeline, steps, `used its budget of ${maxCalls} model calls for one question`, 'Raise [chat].max_model_calls in config.toml if the pipeline needs more calls'));
      finish('failed', budget.message);
      throw budget;
    }
    finish(signal.aborted ? 'cancelled' : 'failed', error instanceof Error ? error.message : String(error));
    throw error;
  }
  return finish('done');
}

/** The sources of the turn: the evidence sent (bodies left out). */
function sourcesOf(state: TurnState) {
  return state.evidence.map(({ text: _text, ...source }) => source);
}

/** The trace as it stands. */
export function traceOf(deps: Pick<TurnDeps, 'pipeline' | 'pipelineProblems'>, state: TurnState, calls: TurnCalls): ChatTrace {
  const round = state.rounds.at(-1);
  const plan = state.plan;
  const route = state.route ?? { mode: FALLBACK_MODE, query: state.question, source: 'fallback' as const, reason: 'the turn ended before routing', thinking: false };
  const notes = [...state.notes, ...state.rounds.flatMap((r) => r.notes.map((n) => (r.round > 0 ? `Round ${r.round}: ${n}` : n))), ...(state.history?.notes ?? [])];
  return {
    route,
    intent: plan?.intent ?? 'SEARCH',
    searchMode: round?.searchMode ?? 'none',
    notes,
    expansion: { seeds: round?.expansion.seeds ?? 0, added: round?.expansion.added ?? 0, depth: plan?.depth ?? 0, decay: plan?.decay ?? 0 },
    evidenceTokens: round?.evidenceTokens ?? 0,
    budgetTokens: deps.pipeline.settings.max_context_tokens,
    pipeline: { name: deps.pipeline.name, lineage: deps.pipeline.lineage, warnings: deps.pipeline.warnings, problems: deps.pipelineProblems ?? [] },
    steps: [...state.steps],
    ...(state.language ? { language: state.language } : {}),
    ...(state.history ? { history: state.history } : {}),
    ...(state.summaries ? { summaries: state.summaries } : {}),
    rounds: state.rounds.map((r) => ({ ...r, notes: [...r.notes] })),
    calls: calls.calls.map((c) => ({ ...c })),
    loops: { used: Math.max(0, state.rounds.length - 1), max: deps.pipeline.settings.max_turn_loops, requests: [...state.requests], exhausted: state.exhausted ?? false },
  };
}
