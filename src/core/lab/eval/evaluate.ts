import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { AppError } from '../../../shared/contract';
import type { EvalReport, EvalTask } from '../../../shared/contract/eval';
import { repositoryRoot } from '../../platform/git';
import { mineTasks } from './mine';
import { saveReport } from './reports';
import { runEval, type EvalProgress, type ProductRetrieval } from './run';
import { readTasksFile } from './tasksFile';
import type { PipelineEvalOptions } from './pipelineTask';
import type { ChatEvidenceEvalOptions } from './chatEvidence';
import { DEFAULT_COMMITS, DEFAULT_KS } from '../../../shared/defaults';
import { reportsDir, worktreesDir } from '../../platform/layout';

export { DEFAULT_COMMITS, DEFAULT_KS };

/** What `cra eval` and `eval/start` ask for. */
export interface EvaluateOptions {
  dataDir: string;
  repoPath: string;
  commits?: number;
  since?: string;
  /** JSON-lines tasks instead of mining. */
  tasksFile?: string;
  ks?: number[];
  /** Also run the retrieval pipeline on each task, with this judge and budget (`cra eval --pipeline`). */
  pipeline?: PipelineEvalOptions;
  /** Also measure the evidence a chat turn would send for each task (`cra eval --chat-evidence`). */
  chatEvidence?: ChatEvidenceEvalOptions;
  retrieval?: ProductRetrieval;
  signal?: AbortSignal;
  onProgress?(progress: EvalProgress & { phase: string }): void;
  /**
   * Who asked, so that advice names only what that caller offers: `cli` (default) may name flags,
   * `app` the Evaluation page's fields (a path and a commit count).
   */
  via?: 'cli' | 'app';
}

/** The pipeline evaluation reads the product index: refuse it without the product search, clearly. */
export function assertPipelineAvailable(pipeline: PipelineEvalOptions | undefined, retrieval: ProductRetrieval | undefined): void {
  if (!pipeline || retrieval?.knowledgeBase) return;
  throw new AppError('UNSUPPORTED', 'The retrieval pipeline can only be evaluated over the product index; run `cra eval --pipeline` (the command builds it) rather than the BM25 reference alone.');
}

/**
 * Evaluate retrieval on a repository: take tasks from its history (or a tasks file), run them,
 * and store the report in `<dataDir>/eval/<id>.json`. Returns the report and the file it went to.
 */
export async function evaluateRepository(options: EvaluateOptions): Promise<{ report: EvalReport; file: string }> {
  assertPipelineAvailable(options.pipeline, options.retrieval);
  const repoPath = await repositoryRoot(options.repoPath);
  const ks = options.ks ?? DEFAULT_KS;
  let tasks: EvalTask[];
  let source: EvalReport['source'];
  if (options.tasksFile) {
    tasks = readTasksFile(options.tasksFile);
    source = { kind: 'file', file: options.tasksFile };
  } else {
    options.onProgress?.({ phase: 'mining', done: 0, total: 0, message: 'reading the history' });
    const commits = options.commits ?? DEFAULT_COMMITS;
    const mined = await mineTasks({ repoPath, commits, since: options.since, signal: options.signal });
    if (mined.tasks.length === 0) {
      throw new AppError(
        'NOT_FOUND',
        `No qualifying commits in ${repoPath} (${mined.considered} looked at: ${describeSkips(mined.skipped)}). ${noTasksAdvice(options)}`,
      );
    }
    tasks = mined.tasks;
    source = { kind: 'history', commits, considered: mined.considered, skipped: mined.skipped as Record<string, number> };
    if (options.since) source.since = options.since;
  }
  const workDir = join(reportsDir(options.dataDir), 'work', randomUUID().slice(0, 8));
  const report = await runEval({
    repoPath,
    tasks,
    source,
    ks,
    workDir,
    worktreesDir: worktreesDir(options.dataDir),
    retrieval: options.retrieval,
    ...(options.pipeline ? { pipeline: options.pipeline } : {}),
    ...(options.chatEvidence ? { chatEvidence: options.chatEvidence } : {}),
    signal: options.signal,
    onProgress: (p) => options.onProgress?.({ phase: 'tasks', ...p }),
  });
  return { report, file: saveReport(options.dataDir, report) };
}

/** What to try when mining found no task, in the caller's terms. */
function noTasksAdvice(options: EvaluateOptions): string {
  if (options.via === 'app') {
    // The page mines the whole history (no date limit), so only another repository can help there.
    return 'A task is a commit that changes a few source files with a descriptive message; choose a repository whose history has such commits.';
  }
  return options.since ? 'Widen --since, or give tasks with --tasks FILE.' : 'Give tasks with --tasks FILE, or evaluate a repository with more history.';
}

function describeSkips(skipped: Record<string, number | undefined>): string {
  const parts = Object.entries(skipped).map(([reason, n]) => `${n} ${reason}`);
  return parts.length > 0 ? parts.join(', ') : 'none';
}
