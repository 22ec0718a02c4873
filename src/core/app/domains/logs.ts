import { existsSync } from 'node:fs';
import type { Handlers } from '../../../shared/contract';
import { AppError } from '../../../shared/contract';
import type { Db } from '../../platform/db/open';
import type { EngineContext } from '../engine';
import { getCall, listCalls } from '../../platform/logs/queries';
import { getRunRecord } from '../../platform/logs/runLog';
import type { ModelServices } from '../../platform/llm/services';

/** The audit log: model calls of the user-level raw DB, or of one repository's. */
export function createLogsHandlers(ctx: Pick<EngineContext, 'repos'>, llm: Pick<ModelServices, 'callLog'>): Pick<Handlers, 'logs/list' | 'logs/get'> {
  const withDb = <T>(repoId: string | undefined, fn: (db: Db) => T): T => {
    if (!repoId) return fn(llm.callLog.database());
    // Any registered repository (indexed or not); its log is read, never created here.
    const repo = ctx.repos.open(repoId);
    try {
      if (!existsSync(repo.paths.raw)) throw new AppError('NOT_FOUND', `Repository ${repoId} has no model calls yet.`);
      return fn(repo.raw);
    } finally {
      repo.dispose();
    }
  };
  return {
    'logs/list': async ({ repoId, ...filters }) =>
      withDb(repoId, (db) => {
        const page = listCalls(db, filters);
        // The run's own row sits beside its calls (task_runs, same raw DB).
        const run = filters.runId ? getRunRecord(db, filters.runId) : undefined;
        return run ? { ...page, run } : page;
      }),
    'logs/get': async ({ repoId, id }) => withDb(repoId, (db) => getCall(db, id)),
  };
}
