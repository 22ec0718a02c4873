import { existsSync } from 'node:fs';
import type { Handlers } from '../../shared/contract';
import { AppError } from '../../shared/contract';
import { openDatabase, type Db } from '../db/open';
import type { EngineContext } from '../engine';
import { getCall, listCalls } from '../logs/queries';
import { getRunRecord } from '../logs/runLog';
import type { ModelServices } from '../llm/services';
import { repoPaths } from '../layout';

/** The audit log: model calls of the user-level raw DB, or of one repository's. */
export function createLogsHandlers(ctx: EngineContext, llm: ModelServices): Pick<Handlers, 'logs/list' | 'logs/get'> {
  const withDb = <T>(repoId: string | undefined, fn: (db: Db) => T): T => {
    if (!repoId) return fn(llm.callLog.database());
    const file = repoPaths(ctx.ports.dataDir, repoId).raw;
    if (!existsSync(file)) throw new AppError('NOT_FOUND', `Repository ${repoId} has no model calls yet.`);
    const db = openDatabase(file, { readOnly: true });
    try {
      return fn(db);
    } finally {
      db.close();
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
