/**
 * Retrieval for the solve passes, behind a small interface (`SolveRetriever`) so the session-backed
 * retrieval entry point with refinement can replace it without touching the orchestrator.
 *
 * The default: task analysis (enriched only when asked), the plan's files as tier-0 files (the
 * scope stage has no plan-file input yet, so they are handed to it as files the task names — it
 * expands from them — and put in front of its candidates here, marked `plan-file`), the scope stage's seeds and their neighbours (judged by the scope model when
 * asked), then a context package read from the run's worktree — so a pass sees the files as
 * earlier steps left them. A RefinementRequest adds its missing files and the definitions of its
 * missing symbols as tier-0 files and its error signatures to the search text.
 */
import type { ContextPackage } from '../../shared/contract/retrieval';
import type { RefinementRequest } from '../../shared/contract/solve';
import { readConfinedFile } from '../fs/confine';
import type { KnowledgeBase } from '../kb/knowledgeBase';
import type { LlmClient } from '../llm/client';
import type { CallLogger } from '../llm/types';
import type { DecisionSink } from '../retrieval/decisionLog';
import { buildPackage, renderMarkdown } from '../retrieval/package';
import { runPipeline, type ContextFile } from '../retrieval/stage';
import { scopeCandidates, ScopeStage } from '../retrieval/stages/scope';
import { analyzeTask } from '../retrieval/taskAnalysis';

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
  /** Evidence from a failed validation (seed §8). */
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
}

/** Settings of the default retriever. */
export interface KbSolveRetrieverOptions {
  kb: KnowledgeBase;
  llm: LlmClient;
  budgetTokens: number;
  /** Enrich task analysis with the task_analysis model (default false). */
  enrich?: boolean;
  /** Judge non-seed candidates with the scope model (needs `decisions`); default false: seeds and their nearest neighbours. */
  judgeScope?: boolean;
  decisions?: DecisionSink;
  /** Most files besides tier 0 (default 8). */
  maxFiles?: number;
}

const MAX_SOURCE_BYTES = 512 * 1024;

/** The default retriever over the repository's index (see the module comment). */
export class KbSolveRetriever implements SolveRetriever {
  constructor(private readonly options: KbSolveRetrieverOptions) {}

  /** Build the pass's context package. */
  async retrieve(request: SolveContextRequest): Promise<SolveContext> {
    const { kb } = this.options;
    const evidence = request.refinement;
    const text = evidence ? `${request.text}\n${[...evidence.error_signatures, ...evidence.missing_tests].join('\n')}` : request.text;
    const task = await analyzeTask(text, kb, { runId: request.runId, log: request.log, signal: request.signal, ...(this.options.enrich ? { llm: this.options.llm } : {}) });
    const tier0 = [...request.planFiles, ...(evidence ? this.evidenceFiles(evidence) : [])];
    // The scope stage has no plan-file input: tier-0 files it knows are added as files the task
    // names, so it expands from them too (their import neighbours); they stay tier 0 below.
    for (const path of tier0) if (kb.getFileByPath(path) && !task.extraction.files.some((f) => f.path === path)) task.extraction.files.push({ text: path, path });
    const files: ContextFile[] = [];
    const seen = new Set<string>();
    const add = (file: ContextFile) => {
      if (seen.has(file.path)) return;
      seen.add(file.path);
      files.push(file);
    };
    for (const path of tier0) add({ fileId: kb.getFileByPath(path)?.id ?? 0, path, tier: 0, reasons: [{ kind: 'plan-file', detail: {} }] });
    let found: ContextFile[];
    if (this.options.judgeScope && this.options.decisions) {
      const result = await runPipeline({ stages: [new ScopeStage()], kb, task, llm: this.options.llm, runId: request.runId, budgetTokens: this.options.budgetTokens, decisions: this.options.decisions, log: request.log, signal: request.signal });
      found = result.context.files;
    } else {
      found = (await scopeCandidates(kb, task, {}, request.signal)).filter((c) => c.tier <= 2).map((c) => ({ fileId: c.fileId, path: c.path, tier: c.tier, reasons: [c.relation] }));
    }
    for (const file of found.slice(0, this.options.maxFiles ?? 8)) add(file);
    const readSource = (path: string) => {
      try {
        const read = readConfinedFile(request.checkout, path, MAX_SOURCE_BYTES);
        return read.size > MAX_SOURCE_BYTES ? null : read.bytes.toString('utf8');
      } catch {
        return null;
      }
    };
    const pkg = buildPackage({ task: { id: task.id, text: request.text }, files, budgetTokens: this.options.budgetTokens, readSource, kb });
    return { package: pkg, markdown: renderMarkdown(pkg), files: pkg.files.map((f) => f.path) };
  }

  /** Files named by evidence: paths the index knows (module names matched by their file name), and where missing symbols are defined. */
  private evidenceFiles(evidence: RefinementRequest): string[] {
    const { kb } = this.options;
    const out: string[] = [];
    for (const name of evidence.missing_files) {
      const clean = name.replace(/^\.\/+/, '');
      if (kb.getFileByPath(clean)) out.push(clean);
      else {
        const base = clean.split(/[\\/.]/).filter(Boolean).pop();
        const match = base ? kb.getFiles().find((f) => f.path.split('/').pop()?.replace(/\.[^.]+$/, '') === base) : undefined;
        if (match) out.push(match.path);
      }
    }
    for (const symbol of evidence.missing_symbols) for (const s of kb.searchSymbolsByName(symbol, 5)) if (s.name === symbol) out.push(s.path);
    return out.filter(Boolean);
  }
}
