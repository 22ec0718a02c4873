import { AppError, type Handlers, type RepoInfo, type SolveOutcome } from '../../../shared/contract';
import { checkMetaPlan, solveRunDetail, solveRunDiffs, type SolveRunDiffs, effectiveStatus, SolveRecords, worktreeIsLive, type SolveRunRow, detectSandbox, noSandboxMessage, requireSandbox, executeSolve, SqliteSolveSession, solveSessionFile } from '../../features/plans';
import type { Db } from '../../platform/db/open';
import type { EngineContext } from '../engine';
import type { ModelServices } from '../../platform/llm/services';

type SolveHandlers = Pick<Handlers, 'plans/solve' | 'plans/getRun' | 'plans/listRuns' | 'plans/discardRun' | 'plans/sandbox'>;

/** The solve domain: handlers, and the diffs of a run for diff review. */
export interface PlansRunsDomain {
  handlers: SolveHandlers;
  /** Per-step and cumulative diffs and the commits the run started from (for review). */
  diffs(repoId: string, solveRunId: string): Promise<SolveRunDiffs>;
}

/**
 * Solve (issue #15): `plans/solve` starts a `solve` run — the orchestrator, or one implement pass of
 * a given plan — in a worktree of ours; `plans/getRun` / `plans/listRuns` read the repository's raw DB.
 */
export function createPlansRunsDomain(ctx: Pick<EngineContext, 'repos' | 'runs' | 'ports'>, llm: Pick<ModelServices, 'client' | 'loadUserConfig' | 'router'>): PlansRunsDomain {
  /** Orchestrator runs going on in this process (a `running` row of no process is interrupted). */
  const active = new Set<string>();
  /** A `running` row is live when this process runs it or a live process holds its worktree (the app beside the CLI). */
  const isLive = (row: SolveRunRow) => active.has(row.id) || worktreeIsLive(ctx.ports.dataDir, row);
  /** `read` with the repository's raw DB and its sessions folder (NOT_FOUND / NOT_INDEXED first). */
  const withRaw = <T>(repoId: string, read: (raw: Db, sessions: string, info: RepoInfo) => T): T => ctx.repos.use(repoId, (repo) => read(repo.raw, repo.paths.sessions, repo.info));
  const handlers: SolveHandlers = {
    'plans/solve': async ({ repoId, task, plan, metaPlan, includeUncommitted, allowUnsandboxedValidation, resume }) => {
      const { info, paths } = ctx.repos.use(repoId, (repo) => ({ info: repo.info, paths: repo.paths }));
      // Before a run starts: a missing [models] section is CONFIG_MISSING (run `cra init`).
      llm.router().resolve('coding', 'execute');
      // Validation commands come from the user-level file only, never a repository's own config.
      const config = llm.loadUserConfig().values;
      // Said before the run starts: validation commands run in an OS sandbox, or with the user's consent.
      const commands = config.validation[info.id];
      const allowUnsandboxed = Boolean(allowUnsandboxedValidation) || config.sandbox.allow_unsandboxed_validation;
      if (commands?.test || commands?.lint) await requireSandbox(allowUnsandboxed);
      let runTask = task || plan?.task_summary || '';
      if (resume) {
        const row = withRaw(info.id, (raw) => new SolveRecords(raw).run(resume));
        if (!row || row.repo_id !== info.id) throw new AppError('NOT_FOUND', `No solve run ${resume} for ${info.name}; \`cra solve --list\` shows the runs.`);
        runTask = row.task;
      }
      // A given meta-plan is checked before a run starts (limits from [orchestrator], edges, cycles).
      const problems = metaPlan ? checkMetaPlan(metaPlan, config.orchestrator) : [];
      if (problems.length) throw new AppError('VALIDATION', `The meta-plan is not usable:\n${problems.map((e) => `  - ${e}`).join('\n')}`, { details: { errors: problems } });
      const { runId } = ctx.runs.start(
        'solve',
        `Solve · ${info.name}: ${runTask.slice(0, 60)}`,
        async ({ runId: taskRunId, signal, progress }): Promise<SolveOutcome> => {
          // A new run's orchestrator id is its run id; a resumed run keeps its first id.
          const id = resume ?? taskRunId;
          active.add(id);
          try {
            return await executeSolve({
              dataDir: ctx.ports.dataDir,
              repo: { id: info.id, path: info.path, curatedFile: paths.curated },
              llm: llm.client,
              config,
              solveRunId: id,
              taskRunId,
              task: runTask,
              ...(plan ? { plan } : {}),
              ...(metaPlan ? { metaPlan } : {}),
              includeUncommitted,
              allowUnsandboxedValidation: allowUnsandboxed,
              resume: Boolean(resume),
              signal,
              onProgress: (update) => progress(update),
            });
          } finally {
            active.delete(id);
          }
        },
        resume ? { repoId: info.id, solveRunId: resume } : { repoId: info.id },
      );
      return { ...ctx.runs.started(runId, 'solve'), solveRunId: resume ?? runId };
    },
    'plans/getRun': async ({ repoId, solveRunId }) => ({ run: withRaw(repoId, (raw, sessions) => solveRunDetail(raw, solveRunId, isLive, solveSessionFile(sessions, solveRunId))) }),
    'plans/discardRun': async ({ repoId, solveRunId }) => {
      withRaw(repoId, (raw, sessions) => {
        const records = new SolveRecords(raw);
        const row = records.run(solveRunId);
        if (!row) throw new AppError('NOT_FOUND', `No solve run ${solveRunId} in this repository.`);
        const status = effectiveStatus(row, isLive);
        if (status !== 'cancelled' && status !== 'interrupted') {
          throw new AppError('VALIDATION', `Solve run ${solveRunId} is ${status}; only a cancelled or interrupted run can be discarded${status === 'running' ? ' (cancel it first)' : ''}.`);
        }
        const file = solveSessionFile(sessions, solveRunId);
        if (SqliteSolveSession.exists(file)) SqliteSolveSession.open(file).close({ raw, runId: solveRunId });
        records.finishRun(solveRunId, { status: 'discarded', cumulativeDiff: row.cumulative_diff ?? '', error: 'discarded by the user' });
      });
      return { solveRunId };
    },
    'plans/listRuns': async ({ repoId }) => ({ runs: withRaw(repoId, (raw, _sessions, info) => new SolveRecords(raw).list(info.id, isLive)) }),
    'plans/sandbox': async ({ repoId }) => {
      const info = ctx.repos.use(repoId, (repo) => repo.info);
      const config = llm.loadUserConfig().values;
      const commands = config.validation[info.id];
      const commandsConfigured = Boolean(commands?.test || commands?.lint);
      const allowUnsandboxed = config.sandbox.allow_unsandboxed_validation;
      const sandbox = (await detectSandbox())?.kind ?? null;
      const wouldRefuse = commandsConfigured && !sandbox && !allowUnsandboxed;
      const message = sandbox
        ? `Validation commands run in ${sandbox === 'bwrap' ? 'bubblewrap' : 'sandbox-exec'}: only the run's own copy is writable, with no network and none of your environment.`
        : allowUnsandboxed
          ? 'This machine has no sandbox; you allowed validation commands to run with your rights (with a clean environment and time limits).'
          : noSandboxMessage();
      return { sandbox, commandsConfigured, allowUnsandboxed, wouldRefuse, message };
    },
  };
  return {
    handlers,
    async diffs(repoId, solveRunId) {
      return withRaw(repoId, (raw, sessions) => solveRunDiffs(raw, solveRunId, solveSessionFile(sessions, solveRunId)));
    },
  };
}
