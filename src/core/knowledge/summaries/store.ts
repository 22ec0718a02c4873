/**
 * The summary tree of a repository (RAPTOR): one SQLite file beside its index,
 * `<data>/repos/<id>/summaries.sqlite`. Level 1 summarises clusters of files, each level above
 * clusters of the level below. A summary is keyed by its members (`member_key`: a hash of the
 * members' content), so a rebuild reuses every summary whose members did not change.
 */
import { openDatabase, type Db, type Migration } from '../../platform/db/open';

const MIGRATIONS: Migration[] = [
  {
    version: 1,
    description: 'summaries and the embedder their vectors come from',
    up(db) {
      db.exec(`
        create table summaries (
          id integer primary key,
          level integer not null,
          member_key text not null,
          text text not null,
          files text not null,
          vector blob not null,
          model text not null,
          built_at text not null,
          unique (level, member_key)
        );
        create table summary_meta (key text primary key, value text not null);
      `);
    },
  },
];

/** One stored summary. */
export interface Summary {
  id: number;
  level: number;
  memberKey: string;
  text: string;
  /** Repository paths the summary covers. */
  files: string[];
  vector: Float32Array;
  model: string;
  builtAt: string;
}

const toVector = (blob: Buffer) => new Float32Array(new Uint8Array(blob).buffer.slice(0));

/** Read and write a repository's summary tree. */
export class SummaryStore {
  private constructor(private readonly db: Db) {}

  static open(file: string): SummaryStore {
    return new SummaryStore(openDatabase(file, { migrations: MIGRATIONS }));
  }

  close(): void {
    this.db.close();
  }

  /** The embedder the vectors come from (null before the first build). */
  embedderId(): string | null {
    return (this.db.prepare("select value from summary_meta where key = 'embedder'").pluck().get() as string | undefined) ?? null;
  }

  all(): Summary[] {
    const rows = this.db.prepare('select id, level, member_key, text, files, vector, model, built_at from summaries order by level, id').all() as Array<{ id: number; level: number; member_key: string; text: string; files: string; vector: Buffer; model: string; built_at: string }>;
    return rows.map((r) => ({ id: r.id, level: r.level, memberKey: r.member_key, text: r.text, files: JSON.parse(r.files) as string[], vector: toVector(r.vector), model: r.model, builtAt: r.built_at }));
  }

  /** Counts per level. */
  levels(): Array<{ level: number; summaries: number }> {
    return this.db.prepare('select level, count(*) as summaries from summaries group by level order by level').all() as Array<{ level: number; summaries: number }>;
  }

  /** Replace the whole tree in one transaction (a reader never sees half a rebuild). */
  replace(embedderId: string, summaries: ReadonlyArray<Omit<Summary, 'id'>>): void {
    const insert = this.db.prepare('insert into summaries (level, member_key, text, files, vector, model, built_at) values (?, ?, ?, ?, ?, ?, ?)');
    this.db.transaction(() => {
      this.db.exec('delete from summaries');
      this.db.prepare("insert or replace into summary_meta (key, value) values ('embedder', ?)").run(embedderId);
      for (const s of summaries) insert.run(s.level, s.memberKey, s.text, JSON.stringify(s.files), Buffer.from(s.vector.buffer, s.vector.byteOffset, s.vector.byteLength), s.model, s.builtAt);
    })();
  }

  /**
   * Summaries whose cosine similarity to the unit `query` is at least `minScore`, best first (at
   * most `limit`). Vectors of another embedder than `embedderId` are never compared.
   */
  nearest(query: Float32Array, embedderId: string, options: { minScore: number; limit: number }): Array<Summary & { score: number }> {
    if (this.embedderId() !== embedderId) return [];
    return this.all()
      .map((s) => {
        let dot = 0;
        for (let i = 0; i < query.length; i++) dot += query[i]! * (s.vector[i] ?? 0);
        return { ...s, score: dot };
      })
      .filter((s) => s.score >= options.minScore)
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .slice(0, options.limit);
  }
}
