/**
 * A solve run from start (or resume) to its recorded end: the repository's raw DB and index are
 * opened, the worktree made (or rebuilt for a resume), the session opened, the orchestrator run,
 * and the end written — outcome and cumulative diff, the session archived — or, on a cancellation
 * or an error, the run left resumable. The worktree is always removed: the diffs are in the DB.
 */
import { AppError, isCancellation } from '../../../shared/contract';
import type { Plan } from '../../../shared/contract/plans';
import type { MetaPlan, SolveOutcome } from '../../../shared/contract/plansRuns';
import type { ConfigValues } from '../../platform/config/schema';
import { openRawDatabase } from '../../platform/db/raw';
import { gitText } from '../../platform/git';
import { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';
import type { LlmClient } from '../../platform/llm/client';
import { RawCallLog } from '../../platform/logs/callLog';
import { RawDecisionLog } from '../retrieval';
import { effectiveBudget } from '../retrieval';
import { retrievalSettings } from '../retrieval';
import { initialProgress, reviveProgress, runSolve } from './solve';
import { KbSolveRetriever, type SolveRetriever } from './solveContext';
import type { SolveProgressListener } from './solveProgress';
import { SolveRecords } from './solveRecords';
import { SESSION_KEYS, solveSessionFile, SqliteSolveSession, type OrchestratorProgress } from './solveSession';
import { readRunBase, SolveWorkspace } from './solveWorkspace';
import { repoPaths, worktreesDir } from '../../platform/layout';

/** Statuses a run can be resumed from (a run left `running` by a killed process included). */
export const RESUMABLE = new Set(['running', 'cancelled', 'interrupted']);

/** What a solve run needs. */
export interface ExecuteSolveInput {
  dataDir: string;
  repo: { id: string; path: string; curatedFile: string };
  llm: LlmClient;
  /** The user-level config (validation commands are read from it only). */
  config: ConfigValues;
  /** The orchestrator run id: a new run's, or the run to resume. */
  solveRunId: string;
  /** The typed run (task_runs) doing the work now. */
  taskRunId: string;
  task: string;
  plan?: Plan;
  metaPlan?: MetaPlan;
  includeUncommitted?: boolean;
  /** Run validation commands without an OS sandbox where there is none (the user agreed: flag or [sandbox]). */
  allowUnsandboxedValidation?: boolean;
  resume?: boolean;
  signal?: AbortSignal;
  onProgress?: SolveProgressListener;
  /** Replace the default retrieval (the pipeline with scope and precision), e.g. a scripted one in tests. */
  retriever?: SolveRetriever;
}

/** Run (or resume) a solve and record its end. */
export async function executeSolve(input: ExecuteSolveInput): Promise<SolveOutcome> {
  const paths = repoPaths(input.dataDir, input.repo.id);
  const raw = openRawDatabase(paths.raw);
  const records = new SolveRecords(raw);
  const sessionFile = solveSessionFile(paths.sessions, input.solveRunId);
  let kb: KnowledgeBase | undefined;
  let workspace: SolveWorkspace | undefined;
  let session: SqliteSolveSession | undefined;
  let retriever: SolveRetriever | undefined;
  /** Set once the run's row is ours to end (a refused resume must not touch a finished run). */
  let started = false;
  try {
    let progress: OrchestratorProgress;
    if (input.resume) {
      const row = records.run(input.solveRunId);
      if (!row || row.repo_id !== input.repo.id) throw new AppError('NOT_FOUND', `No solve run ${input.solveRunId} for this repository; \`cra solve --list\` shows them.`);
      if (!RESUMABLE.has(row.status)) throw new AppError('VALIDATION', `Solve run ${input.solveRunId} already ended (${row.status}); only a cancelled or interrupted run can be resumed.`);
      if (!SqliteSolveSession.exists(sessionFile)) throw new AppError('NOT_FOUND', `The session of solve run ${input.solveRunId} is gone; the run cannot be resumed.`);
      session = SqliteSolveSession.open(sessionFile);
      const saved = session.get<OrchestratorProgress>(SESSION_KEYS.progress);
      if (!saved) throw new AppError('NOT_FOUND', `Solve run ${input.solveRunId} recorded no progress; start it again.`);
      progress = reviveProgress(saved);
      records.closeStalePasses(input.solveRunId);
      workspace = await SolveWorkspace.resume({ repo: input.repo.path, root: worktreesDir(input.dataDir), startCommit: row.start_commit, cumulativeDiff: session.get<string>(SESSION_KEYS.cumulativeDiff) ?? '', signal: input.signal });
      records.reopenRun(input.solveRunId, workspace.path);
      started = true;
    } else {
      progress = initialProgress({ task: input.task, ...(input.plan ? { plan: input.plan } : {}), ...(input.metaPlan ? { metaPlan: input.metaPlan } : {}), limits: input.config.orchestrator });
      const base = await readRunBase(input.repo.path, input.signal);
      workspace = await SolveWorkspace.create({ repo: input.repo.path, root: worktreesDir(input.dataDir), base, includeUncommitted: Boolean(input.includeUncommitted), signal: input.signal });
      records.createRun({ id: input.solveRunId, repoId: input.repo.id, task: input.task, mode: progress.mode, taskRunId: input.taskRunId, base, startCommit: workspace.startCommit, worktreePath: workspace.path, input: { plan: input.plan ?? null, metaPlan: input.metaPlan ?? null, includeUncommitted: Boolean(input.includeUncommitted) } });
      started = true;
      session = SqliteSolveSession.open(sessionFile);
      session.set(SESSION_KEYS.progress, progress);
      if (input.metaPlan) session.set(SESSION_KEYS.metaPlan, input.metaPlan);
      session.set(SESSION_KEYS.cumulativeDiff, '');
    }
    kb = KnowledgeBase.open(input.repo.curatedFile, input.repo.id);
    const config = input.config;
    retriever =
      input.retriever ??
      new KbSolveRetriever({
        kb,
        llm: input.llm,
        budgetTokens: effectiveBudget({ contextWindow: config.budget.context_window, reservedTokens: config.budget.reserved_tokens }),
        enrich: config.models?.overrides.task_analysis !== undefined,
        decisions: new RawDecisionLog(raw),
        sessionsDir: paths.sessions,
        archiveTo: raw,
        settings: retrievalSettings(config),
      });
    const configured = config.validation[input.repo.id];
    const validation = configured ? { ...configured, allowUnsandboxed: Boolean(input.allowUnsandboxedValidation) || config.sandbox.allow_unsandboxed_validation } : undefined;
    const outcome = await runSolve(
      { llm: input.llm, retriever, records, session, workspace, limits: config.orchestrator, log: new RawCallLog(raw), ...(validation ? { validation } : {}), ...(input.signal ? { signal: input.signal } : {}), ...(input.onProgress ? { onProgress: input.onProgress } : {}) },
      input.solveRunId,
      progress,
    );
    const cumulativeDiff = await workspace.cumulativeDiff();
    outcome.files = (await gitText(['diff', '--name-only', '-z', workspace.startCommit, 'HEAD'], { cwd: workspace.path })).split('\0').filter(Boolean);
    records.finishRun(input.solveRunId, { status: outcome.status, outcome, cumulativeDiff, progress });
    session.close({ raw, runId: input.solveRunId });
    session = undefined;
    return outcome;
  } catch (error) {
    if (started) {
      const cumulativeDiff = session?.get<string>(SESSION_KEYS.cumulativeDiff) ?? '';
      records.finishRun(input.solveRunId, { status: isCancellation(error) ? 'cancelled' : 'interrupted', cumulativeDiff, error: (error as Error).message });
    }
    throw error;
  } finally {
    // The retrieval sessions of the passes are archived into raw before it closes.
    retriever?.close?.();
    session?.close();
    await workspace?.remove();
    kb?.close();
    raw.close();
  }
}
