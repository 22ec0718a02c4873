import type { RepoInfo } from '../../../shared/contract';
import { AppError } from '../../../shared/contract/errors';
import type { Db } from '../../platform/db/open';
import { openRawDatabase } from '../../platform/db/raw';
import type { KbLease, KbReaders } from '../kb/readers';
import type { KnowledgeBase } from '../kb/knowledgeBase';
import { repoPaths, type RepoPaths } from '../../platform/layout';
import { requireRepo, resolveIndexedRepo } from './indexed';
import type { RepoRegistry } from './registry';

/** A class over a raw DB connection (`RawCallLog`, `RawDecisionLog`, `ConversationStore`, `SolveRecords`…). */
export type RawTable<T> = new (db: Db) => T;

/**
 * One opened repository: its record, its paths, its index and its raw DB. Every `open` returns a
 * reference of its own; the connections behind it are shared by all references to the repository
 * and stay open until the repository is removed or the engine shuts down. Give a reference back
 * with `dispose()` (twice is harmless); any use after that throws.
 */
export interface RepoHandle {
  readonly id: string;
  /** The registry record as it was when this reference was opened. */
  readonly info: RepoInfo;
  /** Its files under the data folder (the layout module's `repoPaths`). */
  readonly paths: RepoPaths;
  /**
   * The index, read-only, from the engine's one reader pool; leased on first use and held until
   * `dispose()` (a replaced index stays readable to this reference until then).
   */
  readonly kb: KnowledgeBase;
  /** The raw DB (created with its schema on first use): one connection per repository. */
  readonly raw: Db;
  /** The typed accessor of a raw table: one instance per class and connection. */
  table<T>(type: RawTable<T>): T;
  dispose(): void;
}

/** The shared state of one repository: its raw connection, its table accessors and who holds it. */
interface Entry {
  id: string;
  paths: RepoPaths;
  refs: number;
  raw: Db | undefined;
  tables: Map<RawTable<unknown>, unknown>;
  /** Removed (or shut down) while held: closed when the last reference is disposed. */
  retired: boolean;
}

/** What the handles need from the engine. */
export interface RepoHandlesDeps {
  dataDir: string;
  registry: Pick<RepoRegistry, 'get' | 'findByPath'>;
  /** The engine's one pool of index readers. */
  readers: KbReaders;
}

/**
 * Where every handler gets a repository (`open` / `openIndexed`, or `use` around a body): the
 * one place a repository's databases are opened, and — `close(id)` when the repository is removed,
 * `closeAll()` at shutdown — the one place they are closed.
 */
export class RepoHandles {
  private readonly entries = new Map<string, Entry>();
  /** Shut down: nothing more is shared. */
  private closed = false;

  constructor(private readonly deps: RepoHandlesDeps) {}

  /** A registered repository (NOT_FOUND otherwise), indexed or not. */
  open(repoId: string): RepoHandle {
    return this.reference(requireRepo(this.deps.registry, repoId));
  }

  /** A registered repository whose index can be read (NOT_FOUND / NOT_INDEXED, as `resolveIndexedRepo` decides). */
  openIndexed(repoId: string): RepoHandle {
    return this.reference(resolveIndexedRepo({ dataDir: this.deps.dataDir, registry: () => this.deps.registry }, { repoId }).info);
  }

  /** Run `body` with an indexed repository, disposing the reference when it ends (settles, for a promise). */
  use<T>(repoId: string, body: (repo: RepoHandle) => T): T {
    const repo = this.openIndexed(repoId);
    let result: T;
    try {
      result = body(repo);
    } catch (error) {
      repo.dispose();
      throw error;
    }
    if (result instanceof Promise) return result.finally(() => repo.dispose()) as T;
    repo.dispose();
    return result;
  }

  /**
   * The repository's shared raw connection for one synchronous write (the run journal), or
   * undefined when there is none to share (not registered, removed, or the engine shut down).
   */
  sharedRaw(repoId: string): Db | undefined {
    if (this.closed) return undefined;
    let repo: RepoHandle | undefined;
    try {
      repo = this.open(repoId);
      return repo.raw;
    } catch {
      return undefined;
    } finally {
      repo?.dispose();
    }
  }

  /** How many references to a repository are open (tests and diagnostics). */
  references(repoId: string): number {
    return this.entries.get(repoId)?.refs ?? 0;
  }

  /** The repository is being removed: its connections close now, or when its last reference is disposed. */
  close(repoId: string): void {
    const entry = this.entries.get(repoId);
    this.deps.readers.drop(repoId);
    if (!entry) return;
    this.entries.delete(repoId);
    entry.retired = true;
    if (entry.refs === 0) closeEntry(entry);
  }

  /** Engine shutdown. */
  closeAll(): void {
    this.closed = true;
    for (const id of [...this.entries.keys()]) this.close(id);
    this.deps.readers.closeAll();
  }

  private reference(info: RepoInfo): RepoHandle {
    let entry = this.entries.get(info.id);
    if (!entry) {
      entry = { id: info.id, paths: repoPaths(this.deps.dataDir, info.id), refs: 0, raw: undefined, tables: new Map(), retired: false };
      this.entries.set(info.id, entry);
    }
    entry.refs++;
    const held = entry;
    const readers = this.deps.readers;
    let lease: KbLease | undefined;
    let disposed = false;
    const live = (what: string): Entry => {
      if (disposed) throw new Error(`The handle of repository ${info.id} was disposed; ${what} needs a handle of its own (repos.open).`);
      return held;
    };
    const rawOf = (e: Entry): Db => {
      if (e.retired) throw new AppError('NOT_FOUND', `Repository ${info.id} was removed; its log cannot be opened again. Add it again to use it.`);
      return (e.raw ??= openRawDatabase(e.paths.raw));
    };
    return {
      id: info.id,
      info,
      paths: held.paths,
      get kb() {
        live('reading the index');
        return (lease ??= readers.lease(info.id, held.paths.curated)).kb;
      },
      get raw() {
        return rawOf(live('the raw DB'));
      },
      table<T>(type: RawTable<T>): T {
        const e = live(`the ${type.name} table`);
        let table = e.tables.get(type) as T | undefined;
        if (table === undefined) {
          table = new type(rawOf(e));
          e.tables.set(type, table);
        }
        return table;
      },
      dispose() {
        if (disposed) return;
        disposed = true;
        lease?.release();
        held.refs--;
        if (held.retired && held.refs === 0) closeEntry(held);
      },
    };
  }
}

function closeEntry(entry: Entry): void {
  entry.tables.clear();
  entry.raw?.close();
  entry.raw = undefined;
}
