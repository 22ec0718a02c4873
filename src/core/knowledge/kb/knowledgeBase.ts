import { AppError, type SkippedFile } from '../../../shared/contract';
import { openDatabase, type Db } from '../../platform/db/open';
import type { EmbedderStatus } from '../../../shared/contract/search';
import { readLanguageCounts, readRepoOverview } from './overview';
import { SearchIndex } from './searchIndex';
import { statementCacheOf, type StatementCache } from './statements';
import { embedderStatuses, vectorCount, VectorStore } from './vectors';
import type {
  CoChangeNeighbor,
  CommitRecord,
  DependencyEdge,
  DependencySubgraph,
  EdgeDirection,
  FileContext,
  FileDocstrings,
  FileMetadataRecord,
  FileRecord,
  ImportRecord,
  RationaleRecord,
  RepoOverview,
  StageAdapter,
  SymbolNeighbor,
  SymbolRecord,
  SymbolReferenceRecord,
} from './types';

export type * from './types';

const FILE_COLUMNS = `f.id, f.path, f.language, f.size, f.lines, f.content_hash as contentHash, f.is_test as isTest,
  f.skip_reason as skipReason, f.has_syntax_errors as hasSyntaxErrors`;
const SYMBOL_COLUMNS = `s.id, s.file_id as fileId, f.path, s.name, s.qualified_name as qualifiedName, s.kind, s.signature, s.docstring,
  s.start_line as startLine, s.end_line as endLine, s.parent_id as parentId, s.is_exported as isExported`;

type Row = Record<string, unknown>;

/** The KnowledgeBase of each open connection (see {@link KnowledgeBase.of}). */
const byConnection = new WeakMap<Db, KnowledgeBase>();
const toFile = (r: Row): FileRecord => ({ ...(r as unknown as FileRecord), isTest: r.isTest === 1, hasSyntaxErrors: r.hasSyntaxErrors === 1 });
const toSymbol = (r: Row): SymbolRecord => ({ ...(r as unknown as SymbolRecord), isExported: r.isExported === 1 });

/**
 * The query API over one repository's curated index (docs/design.md, The query API).
 * Reads only; every retrieval stage, search and chat go through it. Open it over a read-only
 * connection with `KnowledgeBase.open(curatedFile, repoId)`; call `close()` when done.
 */
export class KnowledgeBase {
  /** Every statement of this connection, prepared once. */
  private readonly sql: StatementCache;
  /** What code search reads, through the same statement cache. */
  readonly searchIndex: SearchIndex;

  constructor(
    private readonly db: Db,
    /** The repository this index belongs to. */
    readonly repoId: string,
  ) {
    this.sql = statementCacheOf(db);
    this.searchIndex = new SearchIndex(db, this.sql);
    byConnection.set(db, this);
  }

  /**
   * The KnowledgeBase of a connection someone else opened (tests, benches, the evaluation's
   * per-commit indexes): the same one on every call, so its statements are prepared once.
   */
  static of(target: Db | KnowledgeBase): KnowledgeBase {
    if (target instanceof KnowledgeBase) return target;
    return byConnection.get(target) ?? new KnowledgeBase(target, '');
  }

  /** The vectors of an embedder in this index, or undefined when it has none (no table is created). */
  vectorStore(embedderId: string): VectorStore | undefined {
    return VectorStore.existing(this.db, embedderId);
  }

  /** How many chunks have a vector of this embedder (0 when none was ever stored). */
  vectorCount(embedderId: string): number {
    return vectorCount(this.db, embedderId);
  }

  /** Every embedder with vectors in this index. */
  embedders(): EmbedderStatus[] {
    return embedderStatuses(this.db);
  }

  /** How many distinct statements this KnowledgeBase has prepared (each SQL once). */
  get preparedStatements(): number {
    return this.sql.size;
  }

  /**
   * Open a read-only connection to a curated database (with sqlite-vec when `withVectors`, for
   * semantic search); NOT_INDEXED when it does not exist yet.
   */
  static open(curatedFile: string, repoId: string, options: { withVectors?: boolean } = {}): KnowledgeBase {
    let db: Db;
    try {
      db = openDatabase(curatedFile, { readOnly: true, withVectors: options.withVectors });
    } catch (error) {
      throw new AppError('NOT_INDEXED', `Repository ${repoId} has no index yet; run \`cra index <path>\` or add it in the app.`, { cause: error });
    }
    return new KnowledgeBase(db, repoId);
  }

  /** Close the connection. */
  close(): void {
    this.db.close();
  }

  /** Indexed files (not the skipped ones), optionally of one language; [] for another repository's id. */
  getFiles(options: { repoId?: string; language?: string } = {}): FileRecord[] {
    if (options.repoId && options.repoId !== this.repoId) return [];
    const where = options.language ? 'and f.language = ?' : '';
    const args = options.language ? [options.language] : [];
    return (this.sql.rowsOf(`select ${FILE_COLUMNS} from files f where f.skip_reason is null ${where} order by f.path`).all(...args) as Row[]).map(toFile);
  }

  /** One file (indexed or skipped) by repository-relative path, or null. */
  getFileByPath(path: string): FileRecord | null {
    const row = this.sql.rowsOf(`select ${FILE_COLUMNS} from files f where f.path = ?`).get(path) as Row | undefined;
    return row ? toFile(row) : null;
  }

  /** One file by id, or null. */
  getFile(fileId: number): FileRecord | null {
    const row = this.sql.rowsOf(`select ${FILE_COLUMNS} from files f where f.id = ?`).get(fileId) as Row | undefined;
    return row ? toFile(row) : null;
  }

  /** Files recorded but not parsed (binary, oversize, minified, generated, submodule, unreadable). */
  getSkippedFiles(): SkippedFile[] {
    return this.sql.rowsOf('select path, skip_reason as reason, size from files where skip_reason is not null order by path').all() as SkippedFile[];
  }

  /** Files whose enrichment metadata matches; [] (not an error) when there is no metadata. */
  searchFilesByMetadata(query: { domain?: string; module?: string; concepts?: string[] } = {}): FileMetadataRecord[] {
    const rows = this.sql
      .rowsOf(`select m.file_id as fileId, f.path, m.domain, m.module, m.concepts_json as conceptsJson, m.summary from file_metadata m join files f on f.id = m.file_id order by f.path`)
      .all() as Array<Omit<FileMetadataRecord, 'concepts'> & { conceptsJson: string }>;
    const wanted = (query.concepts ?? []).map((c) => c.toLowerCase());
    return rows
      .map(({ conceptsJson, ...r }) => ({ ...r, concepts: JSON.parse(conceptsJson) as string[] }))
      .filter((r) => (!query.domain || r.domain === query.domain) && (!query.module || r.module === query.module))
      .filter((r) => wanted.length === 0 || r.concepts.some((c) => wanted.includes(c.toLowerCase())));
  }

  /** The promoted enrichment metadata of these files (`cra enrich --promote`), in the order given; files without any are left out. */
  fileMetadata(fileIds: readonly number[]): FileMetadataRecord[] {
    const stmt = this.sql.rowsOf(`select m.file_id as fileId, f.path, m.domain, m.module, m.concepts_json as conceptsJson, m.summary from file_metadata m join files f on f.id = m.file_id where m.file_id = ?`);
    return fileIds.flatMap((id) => {
      const row = stmt.get(id) as (Omit<FileMetadataRecord, 'concepts'> & { conceptsJson: string }) | undefined;
      if (!row) return [];
      const { conceptsJson, ...r } = row;
      return [{ ...r, concepts: JSON.parse(conceptsJson) as string[] }];
    });
  }

  /**
   * Files whose promoted metadata matches any of the terms (case-insensitive): a term equal to the
   * domain, the module or a concept counts 2, a term inside them or inside the purpose counts 1.
   * Best first (score, then path), at most `limit`; [] when nothing is promoted.
   */
  searchFileMetadata(terms: readonly string[], limit = 50): Array<FileMetadataRecord & { score: number; matched: string[] }> {
    const wanted = [...new Set(terms.map((t) => t.trim().toLowerCase()).filter((t) => t.length >= 3))];
    if (wanted.length === 0) return [];
    const out: Array<FileMetadataRecord & { score: number; matched: string[] }> = [];
    for (const r of this.searchFilesByMetadata()) {
      const exact = [r.domain, r.module, ...r.concepts].filter((x): x is string => Boolean(x)).map((x) => x.toLowerCase());
      const text = `${exact.join(' ')} ${(r.summary ?? '').toLowerCase()}`;
      let score = 0;
      const matched: string[] = [];
      for (const t of wanted) {
        const s = exact.includes(t) ? 2 : text.includes(t) ? 1 : 0;
        if (s > 0) matched.push(t);
        score += s;
      }
      if (score > 0) out.push({ ...r, score, matched });
    }
    return out.sort((a, b) => b.score - a.score || a.path.localeCompare(b.path)).slice(0, limit);
  }

  /** Symbols defined in a file, in source order, optionally of one kind. */
  getSymbolsForFile(fileId: number, kind?: string): SymbolRecord[] {
    const where = kind ? 'and s.kind = ?' : '';
    const args: unknown[] = kind ? [fileId, kind] : [fileId];
    return (this.sql.rowsOf(`select ${SYMBOL_COLUMNS} from symbols s join files f on f.id = s.file_id where s.file_id = ? ${where} order by s.start_line, s.id`).all(...args) as Row[]).map(toSymbol);
  }

  /**
   * At most `limit` symbols of a file (imports left out) whose lines hold `line`, else its first
   * `limit`, in {@link getSymbolsForFile}'s order: what a walk from a line of the file starts from,
   * without reading every symbol of a large file.
   */
  getSymbolsAround(fileId: number, line: number | null, limit: number): SymbolRecord[] {
    const base = `select ${SYMBOL_COLUMNS} from symbols s join files f on f.id = s.file_id where s.file_id = ? and s.kind != 'import'`;
    const around = line === null ? [] : (this.sql.rowsOf(`${base} and s.start_line <= ? and s.end_line >= ? order by s.start_line, s.id limit ?`).all(fileId, line, line, limit) as Row[]);
    const rows = around.length > 0 ? around : (this.sql.rowsOf(`${base} order by s.start_line, s.id limit ?`).all(fileId, limit) as Row[]);
    return rows.map(toSymbol);
  }

  /**
   * Symbols by name: exact (case-insensitive) on the name or the qualified name, or a pattern with
   * `*` / `?` wildcards (`get*`, `*Handler`). At most `limit`, exported and shorter names first.
   */
  searchSymbolsByName(pattern: string, limit = 100): SymbolRecord[] {
    const hasWildcard = /[*?]/.test(pattern);
    const like = pattern.replace(/[%_\\]/g, (c) => `\\${c}`).replace(/\*/g, '%').replace(/\?/g, '_');
    const where = hasWildcard
      ? "(s.name like @like escape '\\' or s.qualified_name like @like escape '\\')"
      : '(s.name = @p collate nocase or s.qualified_name = @p collate nocase)';
    return (
      this.sql
        .rowsOf(`select ${SYMBOL_COLUMNS} from symbols s join files f on f.id = s.file_id where ${where} order by s.is_exported desc, length(s.qualified_name), f.path limit @limit`)
        .all({ like, p: pattern, limit }) as Row[]
    ).map(toSymbol);
  }

  /** Symbols connected to a symbol by references: what it uses (outgoing) and what uses it (incoming). */
  getSymbolNeighbors(symbolId: number, direction: EdgeDirection = 'both', kinds?: string[]): SymbolNeighbor[] {
    const out: SymbolNeighbor[] = [];
    // One statement whatever the kinds: they travel as a JSON array (null: every kind).
    const kindFilter = 'and (@kinds is null or r.kind in (select value from json_each(@kinds)))';
    const args = { id: symbolId, kinds: kinds && kinds.length > 0 ? JSON.stringify(kinds) : null };
    if (direction !== 'incoming') {
      const rows = this.sql
        .rowsOf(`select r.kind as referenceKind, r.name, r.line, ${SYMBOL_COLUMNS} from symbol_references r join symbols s on s.id = r.target_symbol_id join files f on f.id = s.file_id where r.from_symbol_id = @id ${kindFilter} order by r.line`)
        .all(args) as Row[];
      for (const r of rows) out.push({ direction: 'outgoing', referenceKind: String(r.referenceKind), name: String(r.name), line: Number(r.line), symbol: toSymbol(r), path: String(r.path) });
    }
    if (direction !== 'outgoing') {
      const rows = this.sql
        .rowsOf(
          `select r.kind as referenceKind, r.name as refName, r.line as refLine, rf.path as refPath, ${SYMBOL_COLUMNS} from symbol_references r
           join files rf on rf.id = r.file_id left join symbols s on s.id = r.from_symbol_id left join files f on f.id = s.file_id
           where r.target_symbol_id = @id ${kindFilter} order by rf.path, r.line`,
        )
        .all(args) as Row[];
      for (const r of rows) {
        out.push({ direction: 'incoming', referenceKind: String(r.referenceKind), name: String(r.refName), line: Number(r.refLine), symbol: r.id === null ? null : toSymbol(r), path: String(r.refPath) });
      }
    }
    return out;
  }

  /** Import edges of a file: what it imports (outgoing), what imports it (incoming), or both. */
  getDependencies(fileId: number, direction: EdgeDirection = 'both'): DependencyEdge[] {
    const out: DependencyEdge[] = [];
    if (direction !== 'incoming') {
      const rows = this.sql.rowsOf('select d.to_file_id as fileId, f.path, d.kind, d.specifier from file_dependencies d join files f on f.id = d.to_file_id where d.from_file_id = ? order by f.path').all(fileId) as Omit<DependencyEdge, 'direction'>[];
      out.push(...rows.map((r) => ({ direction: 'outgoing' as const, ...r })));
    }
    if (direction !== 'outgoing') {
      const rows = this.sql.rowsOf('select d.from_file_id as fileId, f.path, d.kind, d.specifier from file_dependencies d join files f on f.id = d.from_file_id where d.to_file_id = ? order by f.path').all(fileId) as Omit<DependencyEdge, 'direction'>[];
      out.push(...rows.map((r) => ({ direction: 'incoming' as const, ...r })));
    }
    return out;
  }

  /** Files within `depth` import edges (either direction) of the seeds, with the edges among them. */
  getDependencySubgraph(fileIds: number[], depth = 1): DependencySubgraph {
    const dist = new Map<number, number>(fileIds.map((id) => [id, 0]));
    let frontier = [...new Set(fileIds)];
    for (let level = 1; level <= depth && frontier.length > 0; level++) {
      const next: number[] = [];
      for (const id of frontier) {
        for (const edge of this.getDependencies(id, 'both')) {
          if (dist.has(edge.fileId)) continue;
          dist.set(edge.fileId, level);
          next.push(edge.fileId);
        }
      }
      frontier = next;
    }
    const ids = [...dist.keys()];
    const files = ids.map((id) => this.getFile(id)).filter((f): f is FileRecord => f !== null);
    const edges = this.sql
      .rowsOf(
        `select from_file_id as fromFileId, to_file_id as toFileId, kind from file_dependencies
         where from_file_id in (select value from json_each(@ids)) and to_file_id in (select value from json_each(@ids))`,
      )
      .all({ ids: JSON.stringify(ids) }) as DependencySubgraph['edges'];
    return { files, edges, depth: Object.fromEntries(dist) };
  }

  /** Files that changed together with this one at least `minCount` times (files still in the index), most first. */
  getCoChangeNeighbors(fileId: number, minCount = 1): CoChangeNeighbor[] {
    const path = this.getFile(fileId)?.path;
    if (!path) return [];
    return this.sql
      .rowsOf(
        `select f.id as fileId, f.path, c.count from (
           select file_b as other, count from co_changes where file_a = @path and count >= @min
           union all select file_a as other, count from co_changes where file_b = @path and count >= @min
         ) c join files f on f.path = c.other order by c.count desc, f.path`,
      )
      .all({ path, min: minCount }) as CoChangeNeighbor[];
  }

  /** The module docstring and the docstrings of the file's symbols. */
  getDocstringsForFile(fileId: number): FileDocstrings {
    const moduleDoc = (this.sql.valuesOf('select module_doc from files where id = ?').get(fileId) as string | null | undefined) ?? null;
    const symbols = this.sql
      .rowsOf('select id as symbolId, qualified_name as qualifiedName, kind, docstring from symbols where file_id = ? and docstring is not null order by start_line')
      .all(fileId) as FileDocstrings['symbols'];
    return { moduleDoc, symbols };
  }

  /** A file's import statements in source order, each with whether it resolved to an indexed file. */
  getImports(fileId: number): ImportRecord[] {
    const rows = this.sql
      .rowsOf(
        `select i.specifier, i.names_json as names, i.alias, i.level, i.line,
           exists(select 1 from file_dependencies d where d.from_file_id = i.file_id and d.specifier = i.specifier) as resolved
         from imports i where i.file_id = ? order by i.line, i.id`,
      )
      .all(fileId) as Row[];
    return rows.map((r) => ({ specifier: String(r.specifier), names: JSON.parse(String(r.names)) as string[], alias: (r.alias as string | null) ?? null, level: Number(r.level), line: Number(r.line), resolved: r.resolved === 1 }));
  }

  /** The names a symbol's own code uses (calls, base classes, decorators) in source order, resolved or not. */
  getReferencesFrom(symbolId: number): SymbolReferenceRecord[] {
    const rows = this.sql.rowsOf('select name, kind, line, target_symbol_id is not null as resolved from symbol_references where from_symbol_id = ? order by line, id').all(symbolId) as Row[];
    return rows.map((r) => ({ name: String(r.name), kind: String(r.kind), line: Number(r.line), resolved: r.resolved === 1 }));
  }

  /** TODO / FIXME / HACK / NOTE / WHY / XXX and "because" comments of a file. */
  getRationaleComments(fileId: number): RationaleRecord[] {
    return this.sql
      .rowsOf('select r.tag, r.text, r.line, r.symbol_id as symbolId, s.qualified_name as symbolName from rationale_comments r left join symbols s on s.id = r.symbol_id where r.file_id = ? order by r.line')
      .all(fileId) as RationaleRecord[];
  }

  /** The newest commits that touched a file. */
  getRecentCommitsForFile(fileId: number, limit = 10): CommitRecord[] {
    const path = this.getFile(fileId)?.path;
    if (!path) return [];
    return this.sql
      .rowsOf('select c.sha, c.author, c.email, c.date, c.message from file_commits fc join commits c on c.sha = fc.sha where fc.path = ? order by c.date desc limit ?')
      .all(path, limit) as CommitRecord[];
  }

  /** The repository's latest commits, newest first. */
  getRecentCommits(limit = 10): CommitRecord[] {
    return this.sql.rowsOf('select sha, author, email, date, message from commits order by date desc limit ?').all(limit) as CommitRecord[];
  }

  /** Tests of a code file, or the code files a test file exercises. */
  getTestLinks(fileId: number): Array<{ fileId: number; path: string; kind: string }> {
    return this.sql
      .rowsOf(
        `select f.id as fileId, f.path, t.kind from test_links t join files f on f.id = t.test_file_id where t.code_file_id = @id
         union select f.id, f.path, t.kind from test_links t join files f on f.id = t.code_file_id where t.test_file_id = @id order by 2`,
      )
      .all({ id: fileId }) as Array<{ fileId: number; path: string; kind: string }>;
  }

  /** Everything about one file at once: symbols, docstrings, rationale, dependencies, co-changes, commits, tests. */
  getFileContext(fileId: number): FileContext {
    const file = this.getFile(fileId);
    if (!file) throw new AppError('NOT_FOUND', `No file with id ${fileId} in the index of ${this.repoId}.`);
    return {
      file,
      symbols: this.getSymbolsForFile(fileId),
      docstrings: this.getDocstringsForFile(fileId),
      rationale: this.getRationaleComments(fileId),
      dependencies: this.getDependencies(fileId, 'both'),
      coChanges: this.getCoChangeNeighbors(fileId, 1),
      commits: this.getRecentCommitsForFile(fileId, 10),
      tests: this.getTestLinks(fileId),
    };
  }

  /** Counts, languages, enrichment domains and the most connected files. */
  getRepoOverview(): RepoOverview {
    return readRepoOverview(this.sql);
  }

  /** Indexed files (not the skipped ones) per language, most first. */
  getLanguageCounts(): Record<string, number> {
    return readLanguageCounts(this.sql);
  }

  // --- Reads for chat (src/core/features/chat): the bodies of evidence, by identity. ---

  /** The chunks of a file in line order (symbol-aligned bodies with their lines and symbol names). */
  getChunksOfFile(fileId: number): Array<{ startLine: number; endLine: number; symbolNames: string; text: string }> {
    return this.sql
      .rowsOf('select start_line as startLine, end_line as endLine, symbol_names as symbolNames, text from chunks where file_id = ? order by start_line, id')
      .all(fileId) as Array<{ startLine: number; endLine: number; symbolNames: string; text: string }>;
  }

  /**
   * The chunk of a file holding `line` (the first in {@link getChunksOfFile}'s order), else the
   * file's first chunk; undefined for a file without chunks. Reads one chunk's text, not the file's.
   */
  getChunkOfFileAt(fileId: number, line: number | null): { startLine: number; endLine: number; symbolNames: string; text: string } | undefined {
    type ChunkRow = { startLine: number; endLine: number; symbolNames: string; text: string };
    const columns = 'start_line as startLine, end_line as endLine, symbol_names as symbolNames, text';
    const at = line === null ? undefined : (this.sql.rowsOf(`select ${columns} from chunks where file_id = ? and start_line <= ? and end_line >= ? order by start_line, id limit 1`).get(fileId, line, line) as ChunkRow | undefined);
    return at ?? (this.sql.rowsOf(`select ${columns} from chunks where file_id = ? order by start_line, id limit 1`).get(fileId) as ChunkRow | undefined);
  }

  /** The adapter (fine-tuned model) active for a pipeline stage; null, as no adapters exist yet. */
  getAdapterForStage(_stage: string): StageAdapter | null {
    return null;
  }
}
