import { statSync } from 'node:fs';
import { KnowledgeBase } from './knowledgeBase';

/** A KnowledgeBase lent by {@link KbReaders}; give it back with `release()` when done. */
export interface KbLease {
  kb: KnowledgeBase;
  release(): void;
}

interface Reader {
  kb: KnowledgeBase;
  file: string;
  ino: number;
  leases: number;
  /** Replaced (or dropped) while lent: closed when its last lease is given back. */
  retired: boolean;
}

/**
 * Read-only KnowledgeBases over curated databases, one per repository, kept open between requests:
 * opening a connection and preparing its statements, its search statistics and its temporary
 * helper tables cost more than a query itself. A reader sees commits of the indexer at once (its
 * caches are keyed by the database's data_version); a replaced file (another inode: the repository
 * was removed and added again) gets a new reader. Every read is synchronous, so requests sharing a
 * reader never see each other's half-done work; a lease keeps a replaced reader open until the
 * request holding it (a chat turn streaming its answer) is done.
 */
export class KbReaders {
  private readonly current = new Map<string, Reader>();

  /** The repository's reader, lent until `release()`. */
  lease(repoId: string, file: string): KbLease {
    const reader = this.readerOf(repoId, file);
    reader.leases++;
    let released = false;
    return {
      kb: reader.kb,
      release: () => {
        if (released) return;
        released = true;
        reader.leases--;
        if (reader.retired && reader.leases === 0) reader.kb.close();
      },
    };
  }

  /** The repository's reader for a synchronous use (nothing awaited while it is read). */
  get(repoId: string, file: string): KnowledgeBase {
    return this.readerOf(repoId, file).kb;
  }

  /** Forget a repository's reader (closed now, or when its last lease is given back). */
  drop(repoId: string): void {
    const reader = this.current.get(repoId);
    if (reader) this.retire(reader);
    this.current.delete(repoId);
  }

  closeAll(): void {
    for (const id of [...this.current.keys()]) this.drop(id);
  }

  private readerOf(repoId: string, file: string): Reader {
    const ino = statSync(file).ino;
    const cached = this.current.get(repoId);
    if (cached && cached.file === file && cached.ino === ino) return cached;
    if (cached) this.retire(cached);
    // sqlite-vec loads into the connection on the first vector read (VectorStore.existing), not here:
    // a keyword search or a chat turn without vectors never pays for it.
    const reader: Reader = { kb: KnowledgeBase.open(file, repoId), file, ino, leases: 0, retired: false };
    this.current.set(repoId, reader);
    return reader;
  }

  private retire(reader: Reader): void {
    reader.retired = true;
    if (reader.leases === 0) reader.kb.close();
  }
}
