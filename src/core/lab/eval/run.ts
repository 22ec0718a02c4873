import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../../shared/contract';
import type { EvalComparison, EvalMethod, EvalMethodResult, EvalReport, EvalTask, EvalTaskResult } from '../../../shared/contract/eval';
import { throwIfAborted } from '../../platform/runtime/runs';
import { Bm25Reference } from './bm25';
import { isTaskSourcePath, taskLanguages } from './classify';
import { gitText, resolveCommit, Worktree } from '../../platform/git';
import { goldRanks, meanScores, scoreRanking } from './metrics';
import type { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';
import { evaluatePipelineTask, type PipelineEvalOptions } from './pipelineTask';
import { goldUnits, scoreUnits } from './functionLevel';
import { changedLines } from './goldLines';
import { pipelineSummary } from './pipelineSummary';
import { chatEvidenceSummary, evalChatPipeline, evaluateChatEvidenceTask, type ChatEvidenceEvalOptions } from './chatEvidence';
import { ConversationStore, type ChatPipeline } from '../../features/chat';

/** How many paths of each ranking are kept in the report (and scored). */
export const RANK_DEPTH = 50;
/** How many paths the search is asked for, so that its source-only ranking still has RANK_DEPTH. */
const SEARCH_POOL = 4 * RANK_DEPTH;
/** The cut-offs at which the report says which reference a search beats (those of the run's ks). */
const COMPARED_KS = [5, 10];

/** The name of a method's ranking restricted to the source files of the task's language. */
export function sourceMethodOf(method: EvalMethod): EvalMethod {
  const source: Partial<Record<EvalMethod, EvalMethod>> = {
    search: 'search-source',
    'search-hybrid': 'search-hybrid-source',
    'search-semantic': 'search-semantic-source',
    bm25: 'bm25-source',
  };
  return source[method] ?? method;
}

/**
 * The product's model-free retrieval as the evaluation drives it. `index` brings the index in
 * `stateDir` up to date with the checkout at `root` (incrementally: the same state folder is passed
 * for every task of a run); `search` ranks files for a task text.
 */
export interface ProductRetrieval {
  /** The report's name for this search (default `search`). */
  method?: EvalMethod;
  /** Bring the vectors in `stateDir` up to date after `index` (hybrid and semantic searches); `progress` gets chunks done/total. */
  embed?(args: { stateDir: string; signal?: AbortSignal; progress?: (done: number, total: number) => void }): Promise<{ embedded: number }>;
  index(args: { root: string; stateDir: string; signal?: AbortSignal }): Promise<{ parsedFiles: number }>;
  search(args: { root: string; stateDir: string; text: string; limit: number; signal?: AbortSignal }): Promise<string[]>;
  /**
   * The same search with its function-level ranking (functionLevel.ts `unitRanking`); when present
   * the run uses it, and scores `search-functions` on tasks with a commit (mined ones, and those of
   * a tasks file that name their fix commit).
   */
  searchUnits?(args: { root: string; stateDir: string; text: string; limit: number; signal?: AbortSignal }): Promise<{ paths: string[]; units: string[] }>;
  /** The index in `stateDir` as a KnowledgeBase (the pipeline evaluation reads it); the caller closes it. */
  knowledgeBase?(stateDir: string): KnowledgeBase;
}

/** Least time between two embedding progress reports of one task. */
const EMBED_PROGRESS_EVERY_MS = 2000;

/** Progress of an evaluation run, one step per task (and embedding progress within a task). */
export interface EvalProgress {
  done: number;
  total: number;
  message: string;
}

/** Everything one evaluation run needs. */
export interface RunEvalOptions {
  repoPath: string;
  tasks: EvalTask[];
  source: EvalReport['source'];
  ks: number[];
  /** A folder for this run's indexes; created, and deleted at the end. */
  workDir: string;
  /** The folder of our worktrees (`worktreesDir(dataDir)`), where the run's checkout goes. */
  worktreesDir: string;
  /** The product search; when absent only the BM25 reference runs and a note says so. */
  retrieval?: ProductRetrieval;
  /** Also run the retrieval pipeline on each task (`cra eval --pipeline`); needs `retrieval.knowledgeBase`. */
  pipeline?: PipelineEvalOptions;
  /** Also measure the evidence a chat turn would send for each task (`cra eval --chat-evidence`); needs `retrieval.knowledgeBase`. */
  chatEvidence?: ChatEvidenceEvalOptions;
  signal?: AbortSignal;
  onProgress?(progress: EvalProgress): void;
}

/**
 * Run the evaluation: for each task, move one temporary worktree to the task's parent commit,
 * update the product index and the BM25 reference incrementally, rank files with both, and score
 * the rankings against the gold files. The worktree and the run's indexes are removed even when
 * the run fails or is cancelled; the user's repository is only read.
 */
export async function runEval(options: RunEvalOptions): Promise<EvalReport> {
  if (options.tasks.length === 0) throw new AppError('NOT_FOUND', 'No tasks to evaluate.');
  if (options.pipeline && !options.retrieval?.knowledgeBase) throw new AppError('UNSUPPORTED', 'The pipeline evaluation needs the product index (a retrieval with knowledgeBase).');
  if (options.chatEvidence && !options.retrieval?.knowledgeBase) throw new AppError('UNSUPPORTED', 'The chat evidence evaluation needs the product index (a retrieval with knowledgeBase).');
  const chatPipeline = options.chatEvidence ? evalChatPipeline(options.chatEvidence.pipeline) : undefined;
  const started = Date.now();
  const head = (await gitText(['rev-parse', 'HEAD'], { cwd: options.repoPath })).trim();
  const searchMethod = options.retrieval?.method ?? 'search';
  const references: EvalMethod[] = ['bm25', 'bm25-source', 'bm25-standard'];
  const functions: EvalMethod[] = options.retrieval?.searchUnits && options.retrieval.knowledgeBase ? ['search-functions'] : [];
  const methods: EvalMethod[] = options.retrieval ? [searchMethod, sourceMethodOf(searchMethod), ...functions, ...references] : references;
  const notes: string[] = options.retrieval ? [] : ['The product search was not available; only the BM25 reference ran.'];
  const ordered = chronological(options.tasks);
  mkdirSync(options.workDir, { recursive: true });
  const bm25 = new Bm25Reference(join(options.workDir, 'bm25.sqlite'));
  let worktree: Worktree | undefined;
  const results: EvalTaskResult[] = [];
  // The turn reads (empty) history from a conversation store: one in the run's folder, removed with it.
  const chat = options.chatEvidence && chatPipeline ? { options: options.chatEvidence, pipeline: chatPipeline, store: ConversationStore.open(join(options.workDir, 'chat-raw.sqlite')) } : undefined;
  try {
    for (const [i, task] of ordered.entries()) {
      throwIfAborted(options.signal);
      options.onProgress?.({ done: i, total: ordered.length, message: task.task.split('\n')[0]!.slice(0, 80) });
      const parent = await resolveCommit(options.repoPath, task.parent);
      if (!parent) {
        results.push({ ...task, indexMs: 0, results: {}, error: `parent ${task.parent} is not a commit of this repository` });
        continue;
      }
      // A tasks file's fix commit gives the function-level gold: one that is not here is the task's error.
      if (task.commit && !(await resolveCommit(options.repoPath, task.commit))) {
        results.push({ ...task, indexMs: 0, results: {}, error: `commit ${task.commit} is not a commit of this repository` });
        continue;
      }
      // A checkout that fails (a blob missing from a partial clone, a damaged object) is that
      // task's error: the run goes on with the next task and keeps every finished one.
      try {
        if (!worktree) worktree = await Worktree.create({ repo: options.repoPath, commit: parent, root: options.worktreesDir, label: 'eval', signal: options.signal });
        else await worktree.checkout(parent, options.signal);
      } catch (error) {
        if (options.signal?.aborted) throw error;
        results.push({ ...task, indexMs: 0, results: {}, error: `checkout of ${parent.slice(0, 12)} failed: ${firstLine(error)}` });
        continue;
      }
      results.push(await runTask({ task, worktree, bm25, methods, options, chat, step: { done: i, total: ordered.length } }));
    }
    options.onProgress?.({ done: ordered.length, total: ordered.length, message: 'done' });
  } finally {
    await worktree?.remove();
    bm25.close();
    chat?.store.close();
    rmSync(options.workDir, { recursive: true, force: true });
  }
  const report = buildReport({ options, head, methods, notes, results, totalMs: Date.now() - started });
  return chat ? { ...report, chatEvidence: chatEvidenceSummary(chat.options, chat.pipeline, results.filter((r) => !r.error)) } : report;
}

async function runTask(args: {
  task: EvalTask;
  worktree: Worktree;
  bm25: Bm25Reference;
  methods: EvalMethod[];
  options: RunEvalOptions;
  chat?: { options: ChatEvidenceEvalOptions; pipeline: ChatPipeline; store: ConversationStore };
  /** This task's place in the run, for progress. */
  step: { done: number; total: number };
}): Promise<EvalTaskResult> {
  const { task, worktree, bm25, options, step, chat } = args;
  const result: EvalTaskResult = { ...task, indexMs: 0, results: {} };
  const stateDir = join(options.workDir, 'index');
  const retrieval = options.retrieval;
  const languages = taskLanguages(task.gold);
  const sourceOnly = (ranked: string[]) => ranked.filter((path) => isTaskSourcePath(path, languages));
  if (retrieval) {
    const indexStart = performance.now();
    const indexed = await retrieval.index({ root: worktree.path, stateDir, signal: options.signal });
    result.parsedFiles = indexed.parsedFiles;
    result.indexMs = Math.round(performance.now() - indexStart);
    if (retrieval.embed) {
      const embedStart = performance.now();
      // The first task embeds the whole repository (minutes on a large one): say how far it is.
      let reported = 0;
      const progress = (done: number, total: number) => {
        if (done < total && performance.now() - reported < EMBED_PROGRESS_EVERY_MS) return;
        reported = performance.now();
        options.onProgress?.({ ...step, message: `embedding chunks: ${done}/${total}` });
      };
      await retrieval.embed({ stateDir, signal: options.signal, progress });
      result.embedMs = Math.round(performance.now() - embedStart);
    }
    const searchStart = performance.now();
    const searchArgs = { root: worktree.path, stateDir, text: task.task, limit: SEARCH_POOL, signal: options.signal };
    const { paths: ranked, units } = retrieval.searchUnits ? await retrieval.searchUnits(searchArgs) : { paths: await retrieval.search(searchArgs), units: undefined };
    const searchMs = performance.now() - searchStart;
    const method = retrieval.method ?? 'search';
    result.results[method] = methodResult(ranked, task.gold, options.ks, searchMs);
    result.results[sourceMethodOf(method)] = methodResult(sourceOnly(ranked), task.gold, options.ks, searchMs);
    if (units && task.commit && retrieval.knowledgeBase) {
      const kb = retrieval.knowledgeBase(stateDir);
      try {
        result.goldFunctions = goldUnits(kb, await changedLines(options.repoPath, task.parent, task.commit, task.gold, options.signal));
      } finally {
        kb.close();
      }
      result.results['search-functions'] = scoreUnits(units, result.goldFunctions, options.ks, searchMs, RANK_DEPTH);
    }
    if (options.pipeline && retrieval.knowledgeBase) {
      options.onProgress?.({ ...step, message: `pipeline (${options.pipeline.judge} judge): ${task.task.split('\n')[0]!.slice(0, 60)}` });
      const kb = retrieval.knowledgeBase(stateDir);
      try {
        result.pipeline = await evaluatePipelineTask({ kb, root: worktree.path, repoPath: options.repoPath, task, options: options.pipeline, signal: options.signal });
      } finally {
        kb.close();
      }
    }
    if (chat && retrieval.knowledgeBase) {
      options.onProgress?.({ ...step, message: `chat evidence: ${task.task.split('\n')[0]!.slice(0, 60)}` });
      const kb = retrieval.knowledgeBase(stateDir);
      try {
        result.chatEvidence = await evaluateChatEvidenceTask({ kb, store: chat.store, task, options: chat.options, pipeline: chat.pipeline, signal: options.signal });
      } catch (error) {
        if (options.signal?.aborted) throw error;
        result.chatEvidence = { mode: chat.options.mode, intent: 'SEARCH', allGold: false, goldFraction: 0, files: 0, evidenceTokens: 0, budget: 'fits', budgetTokens: chat.pipeline.settings.max_context_tokens, hits: 0, nodes: 0, fetched: 0, gold: {}, ms: 0, error: error instanceof Error ? error.message : String(error) };
      } finally {
        kb.close();
      }
    }
  }
  const syncStart = performance.now();
  await bm25.sync(worktree.path, options.signal);
  const syncMs = performance.now() - syncStart;
  const bm25Start = performance.now();
  result.results.bm25 = methodResult(bm25.rank(task.task, RANK_DEPTH), task.gold, options.ks, syncMs + performance.now() - bm25Start);
  const sourceStart = performance.now();
  result.results['bm25-source'] = methodResult(bm25.rankSource(task.task, languages, RANK_DEPTH), task.gold, options.ks, syncMs + performance.now() - sourceStart);
  const standardStart = performance.now();
  result.results['bm25-standard'] = methodResult(bm25.rankStandard(task.task, languages, RANK_DEPTH), task.gold, options.ks, syncMs + performance.now() - standardStart);
  result.sourceCandidates = bm25.sourceCount(languages);
  return result;
}

/** The first line of an error's message (git's errors run on for lines). */
function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n').map((l) => l.trim()).find(Boolean) ?? message;
}

function methodResult(ranked: string[], gold: string[], ks: number[], ms: number): EvalMethodResult {
  const unique = [...new Set(ranked)].slice(0, RANK_DEPTH);
  return { ...scoreRanking(unique, gold, ks), ranked: unique, goldRanks: goldRanks(unique, gold), ms: Math.round(ms) };
}

/** The mean embedding time, present only when the run embedded (hybrid and semantic searches). */
function embedTiming(scored: EvalTaskResult[]): { embedMsMean?: number } {
  const times = scored.map((r) => r.embedMs).filter((ms): ms is number => ms !== undefined);
  return times.length === 0 ? {} : { embedMsMean: Math.round(times.reduce((a, b) => a + b, 0) / times.length) };
}

/** Tasks oldest first when they carry dates (mined ones do), so the index moves forward in time. */
function chronological(tasks: EvalTask[]): EvalTask[] {
  if (!tasks.every((t) => t.date)) return [...tasks];
  return [...tasks].sort((a, b) => a.date!.localeCompare(b.date!));
}

function buildReport(args: {
  options: RunEvalOptions;
  head: string;
  methods: EvalMethod[];
  notes: string[];
  results: EvalTaskResult[];
  totalMs: number;
}): EvalReport {
  const { options, results } = args;
  const scored = results.filter((r) => !r.error);
  const mean = (values: number[]) => (values.length === 0 ? 0 : Math.round(values.reduce((a, b) => a + b, 0) / values.length));
  const summary: EvalReport['summary'] = {};
  const methodMsMean: EvalReport['timing']['methodMsMean'] = {};
  for (const method of args.methods) {
    const per = scored.map((r) => r.results[method]).filter((m): m is EvalMethodResult => m !== undefined);
    summary[method] = meanScores(per, options.ks);
    methodMsMean[method] = mean(per.map((m) => m.ms));
  }
  const failed = results.length - scored.length;
  const notes = [...args.notes, ...ceilingNotes(scored, args.methods, options.ks)];
  if (failed > 0) notes.push(`${failed} task(s) could not be run; see their errors.`);
  const createdAt = new Date().toISOString();
  return {
    id: createdAt.replace(/[:.]/g, '-'),
    createdAt,
    repoPath: options.repoPath,
    head: args.head,
    source: options.source,
    ks: options.ks,
    methods: args.methods,
    summary,
    timing: { totalMs: args.totalMs, indexMsMean: mean(scored.map((r) => r.indexMs)), ...embedTiming(scored), methodMsMean },
    tasks: results,
    notes,
    comparisons: compareWithReferences(args.methods, summary, options.ks),
    ...(options.pipeline ? { pipeline: pipelineSummary(options.pipeline, scored) } : {}),
  };
}

/**
 * Where recall@k says little: tasks whose language has no more source files than a compared k, so
 * that a ranking of those files alone holds every gold file within its top k (koa has 5 to 9). The
 * note gives the source-only reference's recall@k on those tasks: below 1 only where a gold file
 * shares no word with the task.
 */
function ceilingNotes(scored: EvalTaskResult[], methods: readonly EvalMethod[], ks: readonly number[]): string[] {
  if (!methods.includes('bm25-source')) return [];
  const notes: string[] = [];
  for (const k of ks.filter((k) => COMPARED_KS.includes(k))) {
    const small = scored.filter((r) => r.sourceCandidates !== undefined && r.sourceCandidates <= k);
    if (small.length === 0) continue;
    const most = Math.max(...small.map((r) => r.sourceCandidates!));
    const recall = small.reduce((sum, r) => sum + (r.results['bm25-source']?.recallAt[k] ?? 0), 0) / small.length;
    notes.push(
      `In ${small.length} of ${scored.length} task(s) the task's language has at most ${most} source file(s): a ranking of those alone holds every gold file within its top ${k}, so R@${k} says little there (bm25-source R@${k} on them: ${recall.toFixed(3)}).`,
    );
  }
  return notes;
}

/**
 * Which reference each search beats: recall@5 and @10 (those of the run's ks; its largest k when it
 * has neither) of every search method against every BM25 reference.
 */
export function compareWithReferences(methods: readonly EvalMethod[], summary: EvalReport['summary'], ks: readonly number[]): EvalComparison[] {
  const compared = ks.filter((k) => COMPARED_KS.includes(k));
  const cutoffs = compared.length > 0 ? compared : ks.length > 0 ? [Math.max(...ks)] : [];
  const references: EvalMethod[] = methods.filter((m) => m === 'bm25' || m === 'bm25-source' || m === 'bm25-standard');
  // Function-level rankings are not compared with file-level references.
  const searches = methods.filter((m) => !references.includes(m) && m !== 'search-functions');
  const out: EvalComparison[] = [];
  for (const method of searches) {
    for (const reference of references) {
      for (const k of cutoffs) {
        const methodRecall = summary[method]?.recallAt[k] ?? 0;
        const referenceRecall = summary[reference]?.recallAt[k] ?? 0;
        out.push({ method, reference, k, methodRecall, referenceRecall, beats: methodRecall > referenceRecall });
      }
    }
  }
  return out;
}
