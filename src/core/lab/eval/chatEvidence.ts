import type { ChatMode } from '../../../shared/contract/chat';
import type { EvalChatEvidenceResult, EvalChatEvidenceStage, EvalChatEvidenceSummary, EvalTask, EvalTaskResult } from '../../../shared/contract/eval';
import { evidenceBeforeAnswer, DEFAULT_PIPELINE, loadPipelines, type ChatPipeline, type EdgeKind, evidenceCost, expand, trimEvidence, type ConversationStore } from '../../features/chat';
import type { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';
import { EventBus } from '../../platform/runtime/events';
import type { Embedder } from '../../knowledge/search/embedder';
import { median } from './pipelineSummary';

/*
 * `cra eval --chat-evidence` (issue #14 item 13): each task's text is asked as a chat question, and
 * the evidence the turn would send before its answer call — route, retrieval, graph expansion, the
 * fetch of bodies and the budget of the pipeline — is assembled by the chat turn's own code
 * (chat/evidence.ts) and compared with the task's gold files. The route is chosen, not asked of the
 * routing model (the run makes no model call): BM25 for a keyword run, HYBRID or SEMANTIC for those.
 */

/** How the chat evidence is measured. */
export interface ChatEvidenceEvalOptions {
  /** The chosen route (no router call). */
  mode: Exclude<ChatMode, 'auto'>;
  /** The built-in pipeline whose settings and steps are used (default: `default`). */
  pipeline?: string;
  /** Embedder of the vector routes. */
  embedder: Embedder;
}

/** A model client for the evaluation: the chosen route makes no model call, so any call is a bug and says so. */
const noModel = {
  complete(): never {
    throw new Error('cra eval --chat-evidence makes no model call, yet the turn attempted one.');
  },
  stream(): never {
    throw new Error('cra eval --chat-evidence makes no model call, yet the turn attempted one.');
  },
};

/** The built-in pipeline the evaluation runs; a missing or refused one is an error naming it. */
export function evalChatPipeline(name = DEFAULT_PIPELINE): ChatPipeline {
  const set = loadPipelines();
  const pipeline = set.pipelines.get(name);
  if (!pipeline) throw new Error(`There is no usable built-in chat pipeline "${name}"${set.problems.length ? `: ${set.problems.map((p) => p.message).join('; ')}` : ''}.`);
  return pipeline;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * The evidence a chat turn would send for the task's text, at the task's parent (the index in `kb`),
 * and where each gold file got to: sent, or the step that lost it.
 */
export async function evaluateChatEvidenceTask(args: { kb: KnowledgeBase; store: ConversationStore; task: EvalTask; options: ChatEvidenceEvalOptions; pipeline: ChatPipeline; signal?: AbortSignal }): Promise<EvalChatEvidenceResult> {
  const { kb, task, pipeline } = args;
  const started = performance.now();
  const found = await evidenceBeforeAnswer(
    { kb, store: args.store, events: new EventBus(), embedder: args.options.embedder, pipeline, ...noModel },
    { runId: `eval-${task.id}`, repoId: 'eval', conversationId: `eval-${task.id}`, question: task.task, mode: args.options.mode, language: pipeline.settings.model_language, signal: args.signal ?? new AbortController().signal },
  );
  const sent = new Set(found.evidence.map((e) => e.path));
  const asBody = new Set(found.evidence.filter((e) => !e.excerpt).map((e) => e.path));
  const fetched = new Set(found.fetched.map((e) => e.path));
  const left = new Set(found.left.map((n) => n.path));
  const nodes = new Set(found.nodes.map((n) => n.path));
  const hitRank = new Map([...found.seeds, ...found.extraHits].map((s, i) => [s.path, i + 1]));
  // What the walk would have reached without its node cap: a gold file there was lost by the cap.
  let uncapped: Set<string> | undefined;
  const reachedWithoutCap = (path: string) => {
    if (!uncapped) {
      const plan = found.round?.expansion;
      uncapped = new Set(plan ? expand(kb, found.seeds, { depth: plan.depth, decay: plan.decay, maxNodes: Number.MAX_SAFE_INTEGER, edges: plan.edges as EdgeKind[] }).map((n) => n.path) : []);
    }
    return uncapped.has(path);
  };
  const gold: EvalChatEvidenceResult['gold'] = {};
  for (const path of task.gold) {
    let stage: EvalChatEvidenceStage;
    if (sent.has(path)) stage = 'sent';
    else if (!kb.getFileByPath(path)) stage = 'not-indexed';
    else if (fetched.has(path) || left.has(path)) stage = 'budget';
    else if (nodes.has(path)) stage = 'fetch';
    else if (reachedWithoutCap(path)) stage = 'expansion';
    else stage = 'retrieval';
    gold[path] = { stage, hitRank: hitRank.get(path) ?? null, ...(stage === 'sent' && !asBody.has(path) ? { excerpt: true } : {}) };
  }
  const inEvidence = task.gold.filter((g) => sent.has(g)).length;
  // Condensed evidence reaches the answer model as a summary; what fits the budget raw is the stricter measure.
  const raw = new Set(trimEvidence(found.fetched, pipeline.settings.max_context_tokens).evidence.map((e) => e.path));
  return {
    mode: found.route.mode,
    intent: found.intent,
    allGold: task.gold.length > 0 && inEvidence === task.gold.length,
    goldFraction: task.gold.length === 0 ? 0 : round3(inEvidence / task.gold.length),
    allGoldRaw: task.gold.length > 0 && task.gold.every((g) => raw.has(g)),
    files: sent.size,
    evidenceTokens: found.evidence.reduce((n, e) => n + evidenceCost(e), 0),
    budget: found.budget,
    budgetTokens: pipeline.settings.max_context_tokens,
    hits: found.seeds.length,
    nodes: found.nodes.length,
    fetched: found.fetched.length,
    excerpts: found.evidence.filter((e) => e.excerpt).length,
    gold,
    ms: Math.round(performance.now() - started),
  };
}

/** The chat evidence figures over the tasks that measured it, with the search's recall@10 beside them. */
export function chatEvidenceSummary(options: ChatEvidenceEvalOptions, pipeline: ChatPipeline, tasks: readonly EvalTaskResult[]): EvalChatEvidenceSummary {
  // A task whose assembly failed counts as one without its gold files.
  const ran = tasks.filter((t): t is EvalTaskResult & { chatEvidence: EvalChatEvidenceResult } => t.chatEvidence !== undefined);
  const c = ran.map((t) => t.chatEvidence);
  const mean = (values: readonly number[]) => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length);
  const lost: EvalChatEvidenceSummary['lost'] = {};
  for (const g of c.flatMap((x) => Object.values(x.gold))) if (g.stage !== 'sent') lost[g.stage] = (lost[g.stage] ?? 0) + 1;
  const method = tasks.find((t) => t.results.search || t.results['search-hybrid'] || t.results['search-semantic']);
  const searchKey = method?.results.search ? 'search' : method?.results['search-hybrid'] ? 'search-hybrid' : 'search-semantic';
  const search10 = ran.map((t) => t.results[searchKey]?.recallAt['10']).filter((r): r is number => r !== undefined);
  return {
    mode: options.mode,
    pipeline: pipeline.name,
    budgetTokens: pipeline.settings.max_context_tokens,
    tasks: ran.length,
    errors: c.filter((x) => x.error !== undefined).length,
    allGoldRate: round3(mean(c.map((x) => (x.allGold ? 1 : 0)))),
    goldFractionMean: round3(mean(c.map((x) => x.goldFraction))),
    allGoldRawRate: round3(mean(c.map((x) => (x.allGoldRaw ? 1 : 0)))),
    filesMedian: median(c.map((x) => x.files)),
    evidenceTokensMean: Math.round(mean(c.map((x) => x.evidenceTokens))),
    msMean: Math.round(mean(c.map((x) => x.ms))),
    lost,
    goldAsExcerpt: c.flatMap((x) => Object.values(x.gold)).filter((g) => g.excerpt).length,
    condensed: c.filter((x) => x.budget !== 'fits').length,
    ...(search10.length === ran.length && ran.length > 0 ? { searchRecallAt10Mean: round3(mean(search10)) } : {}),
  };
}
