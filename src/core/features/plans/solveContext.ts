/**
 * Retrieval for the solve passes, behind a small interface (`SolveRetriever`) so a test can put a
 * scripted retriever in its place without touching the orchestrator.
 *
 * The default runs the retrieval pipeline itself ({@link retrieve}: task analysis, scope and
 * precision, the package within the budget), with the plan's files as tier 0 (given with the task,
 * never judged; precision keeps a given file whole when it keeps none of its symbols), so a pass
 * sees the symbols the task needs rather than whole files. Files are read from the run's worktree,
 * so a pass sees them as earlier steps left them. Each pass's retrieval keeps its session open
 * until the next pass with the same text, or until the run closes the retriever: a
 * RefinementRequest on that text re-enters the same session ({@link refineContext}), bounded by
 * max_refinement_loops. Sessions are archived into the raw DB when they close. The session files
 * killed runs left are swept at the retriever's first retrieval, not at every pass.
 */
import type { ContextPackage, RetrievalStageName } from '../../../shared/contract/retrieval';
import type { RefinementRequest } from '../../../shared/contract/plansRuns';
import type { Db } from '../../platform/db/open';
import { readConfinedFile } from '../../platform/fs/confine';
import type { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';
import type { LlmClient } from '../../platform/llm/client';
import type { CallLogger } from '../../platform/llm/types';
import type { DecisionSink } from '../retrieval';
import { renderMarkdown } from '../retrieval';
import { retrieve, type RetrievalDeps } from '../retrieval';
import { refineContext, resolveEvidence, type RefinementRequest as RetrievalRefinement } from '../retrieval';
import type { RetrievalSession } from '../retrieval';
import type { RetrievalSettings } from '../retrieval';
import { analyzeTask } from '../retrieval';

/** What one pass asks retrieval for. */
export interface SolveContextRequest {
  /** The text the pass is about (task, part or step). */
  text: string;
  /** Files the plan names: tier 0. */
  planFiles: readonly string[];
  /** The run's worktree: files are read from here. */
  checkout: string;
  /** The pass's run id (its task_runs row) and log. */
  runId: string;
  log?: CallLogger;
  signal?: AbortSignal;
  /** Evidence from a failed validation (docs/design.md, Refinement requests). */
  refinement?: RefinementRequest;
}

/** What retrieval hands a pass. */
export interface SolveContext {
  package: ContextPackage;
  markdown: string;
  /** Every file in the package, tier 0 first. */
  files: string[];
}

/** The retrieval the orchestrator calls: one context per pass (refinement included). */
export interface SolveRetriever {
  retrieve(request: SolveContextRequest): Promise<SolveContext>;
  /** Close what the retriever keeps open (retrieval sessions, archived). */
  close?(): void;
}

/** Settings of the default retriever. */
export interface KbSolveRetrieverOptions {
  kb: KnowledgeBase;
  llm: LlmClient;
  budgetTokens: number;
  /** Enrich task analysis with the task_analysis model (default false). */
  enrich?: boolean;
  /** Where every retrieval decision goes (the repository's raw DB). */
  decisions: DecisionSink;
  /** Folder of the repository's session files. */
  sessionsDir: string;
  /** The raw DB the sessions are archived into when they close. */
  archiveTo?: Db;
  /** [retrieval] settings: stage options, concurrency, safety margin, refinement loops. */
  settings: RetrievalSettings;
  /** The stages run for each pass (default scope, precision). */
  stages?: readonly RetrievalStageName[];
}

const MAX_SOURCE_BYTES = 512 * 1024;

/** The default retriever: the retrieval pipeline over the repository's index (see the module comment). */
export class KbSolveRetriever implements SolveRetriever {
  /** The open session of each pass text, for refinement re-entry. */
  private readonly sessions = new Map<string, { session: RetrievalSession; runId: string }>();
  /** Whether a retrieval of this retriever swept the sessions folder yet. */
  private swept = false;

  constructor(private readonly options: KbSolveRetrieverOptions) {}

  /** Build the pass's context package: a new retrieval, or a refinement of the last one on the same text. */
  async retrieve(request: SolveContextRequest): Promise<SolveContext> {
    const { kb, settings } = this.options;
    const readSource = (path: string) => {
      try {
        const read = readConfinedFile(request.checkout, path, MAX_SOURCE_BYTES);
        return read.size > MAX_SOURCE_BYTES ? null : read.bytes.toString('utf8');
      } catch {
        return null;
      }
    };
    const deps: RetrievalDeps = {
      kb,
      llm: this.options.llm,
      decisions: this.options.decisions,
      runId: request.runId,
      sessionsDir: this.options.sessionsDir,
      readSource,
      concurrency: settings.concurrency,
      safetyMargin: settings.safetyMargin,
      sweep: !this.swept,
      ...(request.log ? { log: request.log } : {}),
      ...(request.signal ? { signal: request.signal } : {}),
    };
    const evidence = request.refinement ? toRetrievalRefinement(request.refinement) : undefined;
    const open = this.sessions.get(request.text);
    if (evidence && open && !open.session.isClosed) {
      const refined = await refineContext(open.session, evidence, { ...deps, maxRefinementLoops: settings.maxRefinementLoops, options: settings.stageOptions });
      return contextOf(refined.package);
    }
    this.closeSession(request.text);
    const task = await analyzeTask(request.text, kb, { runId: request.runId, log: request.log, signal: request.signal, ...(this.options.enrich ? { llm: this.options.llm } : {}) });
    // The plan's files, and (when the pass that had the session is gone, e.g. after a resume) the evidence's, as tier 0.
    const given = [
      ...request.planFiles.filter((path) => kb.getFileByPath(path)).map((path) => ({ path, reason: { kind: 'plan-file' as const, detail: {} } })),
      ...(evidence ? resolveEvidence(kb, evidence).files : []),
    ];
    task.givenFiles = given.filter((g, i) => given.findIndex((x) => x.path === g.path) === i);
    const done = await retrieve({ task, stages: this.options.stages ?? ['scope', 'precision'], budgetTokens: this.options.budgetTokens, options: settings.stageOptions }, deps, this.options.archiveTo);
    this.swept = true;
    this.sessions.set(request.text, { session: done.session, runId: request.runId });
    return contextOf(done.package);
  }

  /** Close every open session (archived into the raw DB when one was given). */
  close(): void {
    for (const text of [...this.sessions.keys()]) this.closeSession(text);
  }

  private closeSession(text: string): void {
    const open = this.sessions.get(text);
    if (!open) return;
    this.sessions.delete(text);
    open.session.close(this.options.archiveTo ? { raw: this.options.archiveTo, runId: open.runId } : undefined);
  }
}

/** The solve contract's refinement request (snake_case, from validation) as retrieval takes it. */
function toRetrievalRefinement(r: RefinementRequest): RetrievalRefinement {
  return { reason: r.reason, missingFiles: r.missing_files, missingSymbols: r.missing_symbols, missingTests: r.missing_tests, errorSignatures: r.error_signatures };
}

function contextOf(pkg: ContextPackage): SolveContext {
  return { package: pkg, markdown: renderMarkdown(pkg), files: pkg.files.map((f) => f.path) };
}
