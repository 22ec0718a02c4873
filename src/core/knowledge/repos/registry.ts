import { nodeCrypto } from '../../platform/nodeModules';
import { basename } from 'node:path';
import { PARSE_ONCE, repoSettingsSchema, type RepoInfo, type RepoSettings, type RepoStats, type RepoStatus } from '../../../shared/contract';
import { openDatabase, type Db, type Migration } from '../../platform/db/open';
import { registryFile } from '../../platform/layout';

/** A repository id: slug of the folder name + the first 8 hex digits of sha1(absolute path). */
export function repoIdFor(absolutePath: string): string {
  const slug =
    basename(absolutePath)
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'repo';
  return `${slug}-${nodeCrypto().createHash('sha1').update(absolutePath).digest('hex').slice(0, 8)}`;
}

/** Counts of an index that has not been built yet. */
export function emptyStats(): RepoStats {
  return { files: 0, symbols: 0, references: 0, dependencies: 0, commits: 0, coChangePairs: 0, chunks: 0, languages: {} };
}

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'registered repositories',
    up: (db) =>
      db.exec(`
        create table repos (
          id text primary key,
          name text not null,
          path text not null unique,
          status text not null default 'new',
          last_indexed_at text,
          stats_json text not null,
          watching integer not null default 0,
          error_code text,
          error_message text,
          created_at text not null
        );
      `),
  },
  {
    version: 2,
    description: 'whether a repository is a git work tree (null until its first index looked)',
    up: (db) => {
      const columns = (db.prepare('pragma table_info(repos)').all() as Array<{ name: string }>).map((c) => c.name);
      if (!columns.includes('is_git')) db.exec('alter table repos add column is_git integer');
    },
  },
  {
    version: 3,
    description: 'the process that runs an index (crash recovery resets only runs whose process is gone)',
    up: (db) => {
      // Two processes may open an old registry at once: the second finds the column already there.
      const columns = (db.prepare('pragma table_info(repos)').all() as Array<{ name: string }>).map((c) => c.name);
      if (!columns.includes('owner_pid')) db.exec('alter table repos add column owner_pid integer');
    },
  },
  {
    version: 4,
    description: "a person's settings for the repository (repoSettingsSchema as JSON; null: none)",
    up: (db) => {
      const columns = (db.prepare('pragma table_info(repos)').all() as Array<{ name: string }>).map((c) => c.name);
      if (!columns.includes('settings_json')) db.exec('alter table repos add column settings_json text');
    },
  },
];

/**
 * Whether a process with this id exists (signal 0 checks without sending anything; EPERM means it
 * exists under another user). A recycled id reads as alive: the row then waits for that process.
 */
export function processIsAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface RepoRow {
  id: string;
  name: string;
  path: string;
  status: RepoStatus;
  last_indexed_at: string | null;
  stats_json: string;
  watching: number;
  error_code: string | null;
  error_message: string | null;
  is_git: number | null;
  owner_pid: number | null;
  settings_json: string | null;
}

/** Stored settings read through the contract's schema; a value this version cannot read is dropped, not fatal. */
function readSettings(json: string | null): RepoSettings | undefined {
  if (!json) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  const parsed = repoSettingsSchema.safeParse(value, PARSE_ONCE);
  return parsed.success && Object.keys(parsed.data).length > 0 ? parsed.data : undefined;
}

function toInfo(row: RepoRow): RepoInfo {
  const info: RepoInfo = {
    id: row.id,
    name: row.name,
    path: row.path,
    status: row.status,
    lastIndexedAt: row.last_indexed_at,
    stats: { ...emptyStats(), ...(JSON.parse(row.stats_json) as Partial<RepoStats>) },
    watching: row.watching === 1,
  };
  if (row.is_git !== null && row.is_git !== undefined) info.git = row.is_git === 1;
  if (row.error_code) info.error = { code: row.error_code, message: row.error_message ?? '' };
  const settings = readSettings(row.settings_json);
  if (settings) info.settings = settings;
  return info;
}

/** The list of registered repositories (`repos.sqlite`). Cheap to open; any module may read it. */
export class RepoRegistry {
  private readonly db: Db;

  constructor(dataDir: string) {
    this.db = openDatabase(registryFile(dataDir), { migrations: MIGRATIONS });
  }

  /** Every repository, by name. */
  list(): RepoInfo[] {
    return (this.db.prepare('select * from repos order by name, path').all() as RepoRow[]).map(toInfo);
  }

  /** One repository, or undefined. */
  get(id: string): RepoInfo | undefined {
    const row = this.db.prepare('select * from repos where id = ?').get(id) as RepoRow | undefined;
    return row ? toInfo(row) : undefined;
  }

  /** The repository registered for an absolute path, or undefined. */
  findByPath(absolutePath: string): RepoInfo | undefined {
    const row = this.db.prepare('select * from repos where path = ?').get(absolutePath) as RepoRow | undefined;
    return row ? toInfo(row) : undefined;
  }

  /** Register a repository (status `new`); returns the existing one when the path is known. */
  add(absolutePath: string, watching: boolean): RepoInfo {
    const existing = this.findByPath(absolutePath);
    if (existing) return existing;
    const id = repoIdFor(absolutePath);
    // Another process may register the same folder between the lookup and the insert (two
    // `cra index` started together): its row wins and both go on with it.
    this.db
      .prepare('insert into repos (id, name, path, status, stats_json, watching, created_at) values (?, ?, ?, ?, ?, ?, ?) on conflict do nothing')
      .run(id, basename(absolutePath) || absolutePath, absolutePath, 'new', JSON.stringify(emptyStats()), watching ? 1 : 0, new Date().toISOString());
    return this.findByPath(absolutePath)!;
  }

  /**
   * Record a status change, with the new statistics and error when given. `indexing` records this
   * process as the run's owner; any other status clears it.
   */
  update(id: string, patch: { status?: RepoStatus; stats?: RepoStats; lastIndexedAt?: string; error?: { code: string; message: string } | null; watching?: boolean; git?: boolean }): RepoInfo | undefined {
    const sets: string[] = [];
    const args: unknown[] = [];
    const set = (column: string, value: unknown) => {
      sets.push(`${column} = ?`);
      args.push(value);
    };
    if (patch.status) {
      set('status', patch.status);
      set('owner_pid', patch.status === 'indexing' ? process.pid : null);
    }
    if (patch.stats) set('stats_json', JSON.stringify(patch.stats));
    if (patch.lastIndexedAt) set('last_indexed_at', patch.lastIndexedAt);
    if (patch.watching !== undefined) set('watching', patch.watching ? 1 : 0);
    if (patch.git !== undefined) set('is_git', patch.git ? 1 : 0);
    if (patch.error !== undefined) {
      set('error_code', patch.error?.code ?? null);
      set('error_message', patch.error?.message ?? null);
    }
    if (sets.length > 0) this.db.prepare(`update repos set ${sets.join(', ')} where id = ?`).run(...args, id);
    return this.get(id);
  }

  /**
   * Change a repository's settings: each key given replaces the stored one, `null` removes it.
   * Validated with the contract's schema before anything is written; returns the repository, or
   * undefined when it is not registered.
   */
  updateSettings(id: string, patch: { [K in keyof RepoSettings]?: RepoSettings[K] | null }): RepoInfo | undefined {
    const current = this.get(id);
    if (!current) return undefined;
    const merged: Record<string, unknown> = { ...current.settings };
    for (const [key, value] of Object.entries(patch)) {
      if (value === null) delete merged[key];
      else merged[key] = value;
    }
    const settings = repoSettingsSchema.parse(merged);
    this.db.prepare('update repos set settings_json = ? where id = ?').run(Object.keys(settings).length ? JSON.stringify(settings) : null, id);
    return this.get(id);
  }

  /**
   * Crash recovery: every repository left `indexing` by a process that is gone (or by a version that
   * recorded no owner) goes back to `ready` (indexed before) or `new`. A run of a live process, this
   * one's included, is left alone. Returns the repositories it changed.
   */
  recoverAbandonedRuns(isAlive: (pid: number) => boolean = processIsAlive): RepoInfo[] {
    const rows = this.db.prepare("select * from repos where status = 'indexing'").all() as RepoRow[];
    const recovered: RepoInfo[] = [];
    for (const row of rows) {
      if (row.owner_pid !== null && isAlive(row.owner_pid)) continue;
      // Only if the row is still the abandoned run: another process may have just started one.
      const changed = this.db
        .prepare("update repos set status = ?, owner_pid = null where id = ? and status = 'indexing' and owner_pid is ?")
        .run(row.last_indexed_at ? 'ready' : 'new', row.id, row.owner_pid).changes;
      const info = changed > 0 ? this.get(row.id) : undefined;
      if (info) recovered.push(info);
    }
    return recovered;
  }

  /** The process recorded as running an index of this repository, or null. */
  indexOwner(id: string): number | null {
    return (this.db.prepare('select owner_pid from repos where id = ?').pluck().get(id) as number | null | undefined) ?? null;
  }

  /** Forget a repository; returns false when it was not registered. */
  remove(id: string): boolean {
    return this.db.prepare('delete from repos where id = ?').run(id).changes > 0;
  }

  /** Close the connection. */
  close(): void {
    this.db.close();
  }
}
