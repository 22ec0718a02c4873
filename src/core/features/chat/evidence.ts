import type { ChatIntent, ChatRoute, ChatTraceRound } from '../../../shared/contract/chat';
import { summaryInput } from './budget';
import { TurnCalls } from './calls';
import { nextStep, type PipelineAction } from './pipeline';
import type { ChatEvidence, GraphNode } from './retrieve';
import type { TurnDeps, TurnInput } from './turnTypes';
import { TurnActions, type TurnState } from './turnActions';
import { AnswerCap, DEFAULT_MAX_ANSWER_KB } from './limits';

/*
 * The evidence a chat turn would send before its first answer call, assembled by the turn's own
 * actions walking its own pipeline (`cra eval --chat-evidence` measures it). The walk stops where
 * the answer would be asked for. A pipeline that condenses over-budget evidence would send a
 * query-aware summary of the pieces the summarizer reads: those pieces are taken as the evidence
 * (the summary keeps every path of them) without making the call.
 */

/** Actions at which the walk ends: the answer call and what can only follow it. */
const STOP_ACTIONS: ReadonlySet<PipelineAction> = new Set(['answer', 'loop_guard', 'finalize_missing', 'finalize']);
/** Steps one walk may take before it stops as a bug. */
const MAX_STEPS = 100;

/** What a turn would send before its first answer call, and how it got there. */
export interface TurnEvidence {
  route: ChatRoute;
  intent: ChatIntent;
  /** The first round of the trace (hits, expansion, fetch, budget). */
  round: ChatTraceRound | undefined;
  /** The search hits taken as seeds, best first. */
  seeds: GraphNode[];
  /** Search hits past the seeds (sent as excerpts at most), best first. */
  extraHits: GraphNode[];
  /** The nodes after graph expansion, best first. */
  nodes: GraphNode[];
  /** Neighbours the node cap left out, best first. */
  spare: GraphNode[];
  /** Nodes and files past them that the pack left out for the budget. */
  left: GraphNode[];
  /** Every body fetched. */
  fetched: ChatEvidence[];
  /** The evidence sent (or summarized) to the answer model. */
  evidence: ChatEvidence[];
  budget: 'fits' | 'summarized' | 'trimmed';
  /** The actions run, in order. */
  steps: PipelineAction[];
  notes: string[];
  /** Model calls made on the way (a chosen route, no expansion and no translation make none). */
  calls: number;
}

/**
 * Walk the turn's pipeline from its entry step with the turn's actions until the answer call, and
 * return the evidence it would send. Nothing is stored and no event is emitted; the question is not
 * appended to the conversation.
 */
export async function evidenceBeforeAnswer(deps: TurnDeps, input: TurnInput): Promise<TurnEvidence> {
  const calls = new TurnCalls(deps);
  const state: TurnState = { questionId: Number.MAX_SAFE_INTEGER, question: input.question, steps: [], rounds: [], requests: [], notes: [], answer: '', shown: '', pool: [], evidence: [], sourcesRound: -1, cap: new AnswerCap(DEFAULT_MAX_ANSWER_KB) };
  const actions = new TurnActions(deps, input, state, calls, { sources: () => undefined, token: () => undefined });
  const settings = deps.pipeline.settings;
  const steps: PipelineAction[] = [];
  let budget: TurnEvidence['budget'] = 'fits';
  let stepId: string | undefined = settings.entry_step_id;
  for (let taken = 0; stepId !== undefined; taken++) {
    if (taken >= MAX_STEPS) throw new Error(`chat pipeline "${deps.pipeline.name}" took more than ${MAX_STEPS} steps before its answer call`);
    const step = deps.pipeline.steps.get(stepId)!;
    if (STOP_ACTIONS.has(step.action)) break;
    steps.push(step.action);
    if (step.action === 'summarize_context') {
      state.evidence = summaryInput(state.pool, settings.max_context_tokens);
      budget = 'summarized';
      break;
    }
    const outcome = await actions.run(step.action);
    if (step.action === 'trim_context') budget = 'trimmed';
    stepId = nextStep(step, outcome);
  }
  return {
    route: state.route ?? { mode: 'DIRECT', query: input.question, source: 'fallback', reason: 'the pipeline did not route', thinking: false },
    intent: state.plan?.intent ?? 'SEARCH',
    round: state.rounds[0],
    seeds: state.seeds ?? [],
    extraHits: state.extraHits ?? [],
    nodes: state.nodes ?? [],
    spare: state.spare ?? [],
    left: state.left ?? [],
    fetched: state.pool,
    evidence: state.evidence,
    budget,
    steps,
    notes: [...state.notes, ...state.rounds.flatMap((r) => r.notes)],
    calls: calls.calls.length,
  };
}
