import type { Db } from '../../platform/db/open';
import { inSlots, SLOT_MARKS } from './slots';
import type { StatementCache } from './statements';
import { UNIT_KINDS } from './types';
import { SymbolGraph } from './symbolGraph';

/** Per-file counts of one term: `counts[i]` occurrences in file `fileIds[i]`. */
export interface TermFrequencies {
  fileIds: Int32Array;
  counts: Int32Array;
}

/** Rows of per-file term counts kept per connection (8 bytes each): a few megabytes at most. */
const TF_CACHE_ROWS = 500_000;

/** A file that has chunks, as whole-file ranking needs it. */
export interface ChunkedFile {
  id: number;
  /** Bytes, at least 1. */
  size: number;
  path: string;
  language: string;
  isTest: boolean;
}

/** Per-connection facts search reuses until another connection commits (a re-index). */
export interface SearchStats {
  /** `PRAGMA data_version` when these were read. */
  dataVersion: number;
  chunks: number;
  /** Query term → chunk frequency; filled and bounded by the caller (core/search/termStats). */
  df: Map<string, number>;
  testFiles: Set<number>;
  /** File id → path and language (null: no such file), filled as searches ask. */
  files: Map<number, { path: string; language: string } | null>;
}

/** File rows kept per connection before the memo starts over. */
const FILE_CACHE_LIMIT = 100_000;

/** A chunk that matched a BM25 query; `score` is the BM25 made positive (higher is better). */
export interface ChunkScore {
  chunkId: number;
  fileId: number;
  score: number;
}

/** A symbol row as the definition signal reads it. */
export interface DefinitionRow {
  fileId: number;
  symbolId: number;
  name: string;
  qualifiedName: string;
  kind: string;
  startLine: number;
  endLine: number;
}

/** A past commit whose message matched a query (`score`: BM25 made positive, higher is better). */
export interface CommitMatch {
  sha: string;
  message: string;
  score: number;
  /** How many paths the commit changed, files since deleted included. */
  paths: number;
  /** The files of the index among them. */
  fileIds: number[];
}

/** The lines and names of a chunk (`text` is '' when read without it). */
export interface ChunkLines {
  start_line: number;
  end_line: number;
  symbol_names: string;
  text: string;
}

/** A chunk row with its main symbol, as the embedding text recipe reads it (core/search/embedText). */
export interface EmbeddingChunkRow {
  id: number;
  path: string;
  kind: string;
  symbol_names: string;
  text: string;
  /** Signature of the first symbol starting inside the chunk. */
  signature: string | null;
  docstring: string | null;
}

/**
 * One page of chunk rows with their main symbol, by id: parameters `(afterId, limit)`. The main
 * symbol is the first one that starts inside the chunk's lines.
 */
export const EMBED_CHUNKS_PAGE_SQL = `
  select c.id, c.path, c.kind, c.symbol_names, c.text, s.signature, s.docstring
  from chunks c
  left join symbols s on s.id = (
    select id from symbols where file_id = c.file_id and start_line between c.start_line and c.end_line order by start_line, id limit 1
  )
  where c.id > ? order by c.id limit ?`;

/** BM25 column weights, as finite numbers (they are written into the SQL, not bound). */
function weightList(weights: readonly number[]): string {
  if (!weights.every((w) => Number.isFinite(w))) throw new Error(`BM25 weights must be finite numbers, got ${weights.join(', ')}.`);
  return weights.join(', ');
}

/**
 * What code search reads from a curated index: BM25 over chunks and paths, term statistics,
 * definitions, graph edges and the rows its results show. One per KnowledgeBase (`kb.searchIndex`),
 * sharing its statement cache, so every query is prepared once per connection.
 */
export class SearchIndex {
  private stats: SearchStats | undefined;
  private chunked: { dataVersion: number; files: ChunkedFile[] } | undefined;
  private helpers = false;
  private tfCache: { dataVersion: number; terms: Map<string, TermFrequencies>; rows: number } | undefined;
  private commitMessages: number | undefined;
  /** Symbols, calls and class hierarchy, for the expansion of search to code the query does not name. */
  readonly symbolGraph: SymbolGraph;

  constructor(
    private readonly db: Db,
    private readonly sql: StatementCache,
  ) {
    this.symbolGraph = new SymbolGraph(sql);
  }

  /**
   * Chunk count, test files and a term-frequency cache of this connection, read again when another
   * connection committed (PRAGMA data_version changed). The first call also memory-maps the file
   * and enlarges the page cache: ranking touches FTS doclists and chunk rows all over the file, and
   * page-cache misses dominated the tail latency.
   */
  searchStats(): SearchStats {
    // Prepared once like the rest: this runs at the start of every search.
    const dataVersion = this.sql.valuesOf('pragma data_version').get() as number;
    if (!this.stats || this.stats.dataVersion !== dataVersion) {
      if (!this.stats) {
        this.db.pragma('mmap_size = 268435456');
        this.db.pragma('cache_size = -32768');
      }
      this.stats = {
        dataVersion,
        chunks: this.sql.valuesOf('select count(*) from chunks').get() as number,
        df: new Map(),
        testFiles: new Set(this.sql.valuesOf('select id from files where is_test = 1').all() as number[]),
        files: new Map(),
      };
    }
    return this.stats;
  }

  /** Chunks in the index. */
  chunkCount(): number {
    return this.sql.valuesOf('select count(*) from chunks').get() as number;
  }

  /** Up to `limit` chunks with an id above `afterId`, in id order, with their main symbol. */
  chunksForEmbedding(afterId: number, limit: number): EmbeddingChunkRow[] {
    return this.sql.rowsOf(EMBED_CHUNKS_PAGE_SQL).all(afterId, limit) as EmbeddingChunkRow[];
  }

  /** How many chunks match an FTS5 expression (one term: its document frequency). */
  countChunksMatching(expression: string): number {
    return this.sql.valuesOf('select count(*) from chunks_fts where chunks_fts match ?').get(expression) as number;
  }

  /** The best `pool` chunks for an FTS5 expression by weighted BM25 over (path, symbol_names, identifiers, text). */
  chunkBm25(expression: string, weights: readonly [number, number, number, number], pool: number): ChunkScore[] {
    return this.sql
      .rowsOf(
        `select f.rowid as chunkId, c.file_id as fileId, -f.s as score
         from (select rowid, bm25(chunks_fts, ${weightList(weights)}) as s
               from chunks_fts where chunks_fts match ? order by s limit ?) f
         join chunks c on c.id = f.rowid`,
      )
      .all(expression, pool) as ChunkScore[];
  }

  /**
   * The functions, methods and classes of one file that some of its symbols (by qualified name)
   * call: a call resolved to the symbol, or one whose name (`helper`, `self.helper`) ends in a
   * symbol's name in the same file. At most `limit` rows, each with its caller.
   */
  calleesInFile(fileId: number, callers: readonly string[], limit: number): Array<{ caller: string; name: string; qualifiedName: string; kind: string; startLine: number; endLine: number }> {
    if (callers.length === 0) return [];
    return this.sql
      .rowsOf(
        `select distinct s.qualified_name as caller, t.name, t.qualified_name as qualifiedName, t.kind, t.start_line as startLine, t.end_line as endLine
         from symbols s join symbol_references r on r.from_symbol_id = s.id
         join symbols t on t.file_id = s.file_id and t.id <> s.id and (t.id = r.target_symbol_id or t.name = r.name or r.name like '%.' || t.name)
         where s.file_id = ? and s.qualified_name in (${SLOT_MARKS}) and r.kind in ('call', 'attribute_call')
           and t.kind in (${[...UNIT_KINDS].map((k) => `'${k}'`).join(', ')})
         limit ${Math.trunc(limit)}`,
      )
      .all(fileId, ...inSlots(callers)[0]!) as Array<{ caller: string; name: string; qualifiedName: string; kind: string; startLine: number; endLine: number }>;
  }

  /** The best `pool` files whose path matches an FTS5 expression, by weighted BM25 over (path, path_tokens). */
  pathBm25(expression: string, weights: readonly [number, number], pool: number): Array<{ fileId: number; score: number }> {
    const w = weightList(weights);
    return this.sql
      .rowsOf(`select rowid as fileId, -bm25(paths_fts, ${w}) as score from paths_fts where paths_fts match ? order by bm25(paths_fts, ${w}) limit ?`)
      .all(expression, pool) as Array<{ fileId: number; score: number }>;
  }

  /** Symbols (not variables) with one of these exact names, at most 500. */
  definitionsNamed(names: readonly string[]): DefinitionRow[] {
    const statement = this.sql.rowsOf(
      `select id as symbolId, file_id as fileId, name, qualified_name as qualifiedName, kind, start_line as startLine, end_line as endLine
       from symbols where name in (${SLOT_MARKS}) and kind not in ('variable') limit 500`,
    );
    return inSlots(names)
      .flatMap((slots) => statement.all(...slots) as DefinitionRow[])
      .slice(0, 500);
  }

  /** Import edges (a imports b) that start or end at one of these files. */
  dependencyEdgesOf(fileIds: readonly number[]): Array<{ a: number; b: number }> {
    const statement = this.sql.rowsOf(
      `select from_file_id as a, to_file_id as b from file_dependencies where from_file_id in (${SLOT_MARKS})
       union select from_file_id, to_file_id from file_dependencies where to_file_id in (${SLOT_MARKS})`,
    );
    // `union` removes repeats within a list; a second list (more than SLOTS files) may repeat edges.
    const edges = new Map<string, { a: number; b: number }>();
    for (const slots of inSlots(fileIds)) {
      for (const edge of statement.all(...slots, ...slots) as Array<{ a: number; b: number }>) edges.set(`${edge.a}:${edge.b}`, edge);
    }
    return [...edges.values()];
  }

  /** Co-change pairs of a path with at least `minCount` commits, most first, at most 20. */
  coChangesOf(path: string, minCount: number): Array<{ a: string; b: string; count: number }> {
    return this.sql
      .rowsOf('select file_a as a, file_b as b, count from co_changes where (file_a = ? or file_b = ?) and count >= ? order by count desc limit 20')
      .all(path, path, minCount) as Array<{ a: string; b: string; count: number }>;
  }

  /** A file's path by id. */
  pathOf(fileId: number): string | undefined {
    return this.pathAndLanguage(fileId)?.path;
  }

  /** Every indexed file (not skipped): id and path, for the file-name match of search (core/search/nameMatch). */
  indexedPaths(): Array<{ id: number; path: string }> {
    return this.sql.rowsOf('select id, path from files where skip_reason is null').all() as Array<{ id: number; path: string }>;
  }

  /** A file's id by path. */
  fileIdOf(path: string): number | undefined {
    return this.sql.valuesOf('select id from files where path = ?').get(path) as number | undefined;
  }

  /** A file's path and language by id. */
  pathAndLanguage(fileId: number): { path: string; language: string } | undefined {
    // Remembered with the search statistics (read again when the index changes): a search asks
    // for the kind of every file it scores, hundreds of lookups per query.
    const files = this.stats?.files;
    const known = files?.get(fileId);
    if (known !== undefined) return known ?? undefined;
    const row = this.sql.rowsOf('select path, language from files where id = ?').get(fileId) as { path: string; language: string } | undefined;
    if (files) {
      if (files.size >= FILE_CACHE_LIMIT) files.clear();
      files.set(fileId, row ? { path: row.path, language: row.language } : null);
    }
    return row;
  }

  /** The file of a chunk. */
  fileOfChunk(chunkId: number): number | undefined {
    return this.sql.valuesOf('select file_id from chunks where id = ?').get(chunkId) as number | undefined;
  }

  /**
   * A chunk's lines and symbol names, with its text or without (`text` ''): without it, reading the
   * row stays on its first page.
   */
  chunkLines(chunkId: number, withText: boolean): ChunkLines | undefined {
    const sql = withText
      ? 'select start_line, end_line, symbol_names, text from chunks where id = ?'
      : "select start_line, end_line, symbol_names, '' as text from chunks where id = ?";
    return this.sql.rowsOf(sql).get(chunkId) as ChunkLines | undefined;
  }

  /**
   * The symbols of a file whose lines overlap `startLine`..`endLine` (a chunk's), by qualified name,
   * in line order, at most `limit`: those the chunk names and those defined inside them.
   */
  symbolsOverlapping(fileId: number, startLine: number, endLine: number, limit: number): Array<{ name: string; kind: string; startLine: number; endLine: number }> {
    return this.sql
      .rowsOf(
        `select qualified_name as name, kind, start_line as startLine, end_line as endLine from symbols
         where file_id = ? and start_line <= ? and end_line >= ? order by start_line limit ${Math.trunc(limit)}`,
      )
      .all(fileId, endLine, startLine) as Array<{ name: string; kind: string; startLine: number; endLine: number }>;
  }

  /** Every symbol of a file with this name and qualified name (a getter and its setter share one), in line order. */
  symbolsInFile(name: string, fileId: number, qualifiedName: string): Array<{ name: string; kind: string; startLine: number; endLine: number }> {
    return this.sql
      .rowsOf('select name, kind, start_line as startLine, end_line as endLine from symbols where name = ? and file_id = ? and qualified_name = ? order by start_line limit 8')
      .all(name, fileId, qualifiedName) as Array<{ name: string; kind: string; startLine: number; endLine: number }>;
  }

  /** The first symbol of a file with this name and qualified name (by name first: the `symbols(name)` index). */
  symbolInFile(name: string, fileId: number, qualifiedName: string): { name: string; kind: string; startLine: number; endLine: number } | undefined {
    return this.sql
      .rowsOf('select name, kind, start_line as startLine, end_line as endLine from symbols where name = ? and file_id = ? and qualified_name = ? order by start_line limit 1')
      .get(name, fileId, qualifiedName) as { name: string; kind: string; startLine: number; endLine: number } | undefined;
  }

  /**
   * How often a stemmed term occurs in the text of each file that has it (from the chunk index).
   * Counting a frequent word's instances costs tens of milliseconds on a large repository, so the
   * answers are kept per connection until the database changes (at most `TF_CACHE_ROWS` rows).
   */
  termFrequencyPerFile(term: string): TermFrequencies {
    const { dataVersion } = this.searchStats();
    if (!this.tfCache || this.tfCache.dataVersion !== dataVersion) this.tfCache = { dataVersion, terms: new Map(), rows: 0 };
    const cached = this.tfCache.terms.get(term);
    if (cached) return cached;
    this.ensureHelpers();
    const rows = this.sql
      .rowsOf(
        `select c.file_id as fileId, count(*) as tf from temp.cra_chunk_instances v join chunks c on c.id = v.doc
         where v.term = ? and v.col = 'text' group by c.file_id`,
      )
      .all(term) as Array<{ fileId: number; tf: number }>;
    const out: TermFrequencies = { fileIds: Int32Array.from(rows, (r) => r.fileId), counts: Int32Array.from(rows, (r) => r.tf) };
    if (this.tfCache.rows + rows.length > TF_CACHE_ROWS) this.tfCache = { dataVersion, terms: new Map(), rows: 0 };
    this.tfCache.terms.set(term, out);
    this.tfCache.rows += rows.length;
    return out;
  }

  /**
   * The distinct words of a text as the index's tokenizer (porter unicode61) turns them into terms,
   * in the order they first occur (a caller keeping the first few keeps the text's first words, not
   * the alphabetically first).
   */
  stemmedWords(text: string): string[] {
    this.ensureHelpers();
    this.sql.rowsOf('insert into temp.cra_stemmer(rowid, text) values (1, ?)').run(text);
    try {
      return this.sql.valuesOf('select term from temp.cra_stemmer_terms group by term order by min(offset)').all() as string[];
    } finally {
      this.sql.rowsOf('delete from temp.cra_stemmer').run();
    }
  }

  /** Every file that has chunks, with its byte size, path, language and test flag, cached until the database changes. */
  chunkedFiles(): readonly ChunkedFile[] {
    const { dataVersion } = this.searchStats();
    if (!this.chunked || this.chunked.dataVersion !== dataVersion) {
      const rows = this.sql
        .rowsOf('select id, size, path, language, is_test as isTest from files where id in (select distinct file_id from chunks)')
        .all() as Array<{ id: number; size: number; path: string; language: string; isTest: number }>;
      this.chunked = { dataVersion, files: rows.map((r) => ({ id: r.id, size: Math.max(1, r.size), path: r.path, language: r.language, isTest: r.isTest === 1 })) };
    }
    return this.chunked.files;
  }

  /**
   * Past commits whose message matches an FTS5 `expression` (unstemmed words; the table stems them
   * as it stems the messages), best first, at most `limit`. The messages are put into a temporary
   * FTS5 table of this connection on first use and again after another connection committed.
   */
  similarCommits(expression: string, limit: number): CommitMatch[] {
    const { dataVersion } = this.searchStats();
    if (this.commitMessages !== dataVersion) {
      this.db.exec(`create virtual table if not exists temp.cra_commit_messages using fts5(sha unindexed, message, tokenize='porter unicode61');
                    delete from temp.cra_commit_messages;
                    insert into temp.cra_commit_messages(sha, message) select sha, message from commits;`);
      this.commitMessages = dataVersion;
    }
    const rows = this.sql
      .rowsOf('select sha, message, -bm25(cra_commit_messages) as score from temp.cra_commit_messages where cra_commit_messages match ? order by bm25(cra_commit_messages) limit ?')
      .all(expression, limit) as Array<{ sha: string; message: string; score: number }>;
    const paths = this.sql.rowsOf('select fc.path as path, f.id as fileId from file_commits fc left join files f on f.path = fc.path where fc.sha = ?');
    return rows.map((r) => {
      const changed = paths.all(r.sha) as Array<{ path: string; fileId: number | null }>;
      return { ...r, paths: changed.length, fileIds: changed.flatMap((c) => (c.fileId === null ? [] : [c.fileId])) };
    });
  }

  /** This connection's temporary helper tables, created once (allowed on read-only connections too). */
  private ensureHelpers(): void {
    if (this.helpers) return;
    this.db.exec(`create virtual table if not exists temp.cra_chunk_instances using fts5vocab(main, 'chunks_fts', 'instance');
             create virtual table if not exists temp.cra_stemmer using fts5(text, tokenize='porter unicode61');
             create virtual table if not exists temp.cra_stemmer_terms using fts5vocab(temp, 'cra_stemmer', 'instance');`);
    this.helpers = true;
  }
}
