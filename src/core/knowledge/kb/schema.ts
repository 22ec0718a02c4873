import { migrate, type Db, type Migration } from '../../platform/db/open';

/**
 * The triggers that keep `chunks_fts` and `paths_fts` in step with `chunks` and `files`. A full
 * build drops them, bulk-inserts, rebuilds both FTS tables once and creates them again.
 */
export const FTS_TRIGGERS = `
        create trigger chunks_ai after insert on chunks begin
          insert into chunks_fts(rowid, path, symbol_names, identifiers, text) values (new.id, new.path, new.symbol_names, new.identifiers, new.text);
        end;
        create trigger chunks_ad after delete on chunks begin
          insert into chunks_fts(chunks_fts, rowid, path, symbol_names, identifiers, text) values ('delete', old.id, old.path, old.symbol_names, old.identifiers, old.text);
        end;
        create trigger files_ai after insert on files begin
          insert into paths_fts(rowid, path, path_tokens) values (new.id, new.path, new.path_tokens);
        end;
        create trigger files_ad after delete on files begin
          insert into paths_fts(paths_fts, rowid, path, path_tokens) values ('delete', old.id, old.path, old.path_tokens);
        end;
        create trigger files_au after update of path, path_tokens on files begin
          insert into paths_fts(paths_fts, rowid, path, path_tokens) values ('delete', old.id, old.path, old.path_tokens);
          insert into paths_fts(rowid, path, path_tokens) values (new.id, new.path, new.path_tokens);
        end;
`;

/** Names of the FTS triggers (for the bulk path). */
export const FTS_TRIGGER_NAMES = ['chunks_ai', 'chunks_ad', 'files_ai', 'files_ad', 'files_au'] as const;

/**
 * Secondary indexes a full build drops before writing and creates again at the end, inside the
 * same transaction: one sort per index instead of a b-tree insert per row. The same definitions as
 * the migrations create (a test compares them).
 */
export const BULK_DEFERRED_INDEXES: ReadonlyArray<{ name: string; sql: string }> = [
  { name: 'refs_file', sql: 'create index refs_file on symbol_references(file_id)' },
  { name: 'refs_from', sql: 'create index refs_from on symbol_references(from_symbol_id)' },
  { name: 'refs_target', sql: 'create index refs_target on symbol_references(target_symbol_id)' },
];

/**
 * The curated database of one repository (`<dataDir>/repos/<id>/curated.sqlite`): the index that
 * retrieval, search and the KnowledgeBase read. Written only by the indexer, in one transaction per
 * run, so readers always see a complete index. Lines are 1-based and inclusive everywhere.
 *
 * Tables:
 * - `index_meta(key, value)`: `index_version`, `git_head` (HEAD of the last git pass), `indexed_at`;
 *   the search helper stores embedder facts here too.
 * - `files`: every listed file, parsed or not. `skip_reason` is null for indexed files, else one of
 *   binary / oversize / minified / generated / submodule / unreadable. `language` is the parser
 *   language (python, typescript, tsx, javascript, go, java, csharp, rust, c, cpp) or a text label.
 *   `path_tokens` holds the path split into words for `paths_fts`.
 * - `symbols`, `symbol_references` (target_symbol_id null = unresolved, name kept), `imports`
 *   (raw import statements), `file_dependencies` (resolved imports; index both ways),
 *   `rationale_comments`, `test_links`, `file_metadata` (empty until enrichment).
 * - git: `commits`, `file_commits(path, sha)`, `co_changes(file_a < file_b, count)` — keyed by path so
 *   history survives files being removed and re-added.
 * - `chunks`: symbol-aligned text chunks, the unit of search. Columns: `file_id`, `path`,
 *   `start_line`, `end_line`, `kind` (the symbol kind, or `text` for windows outside symbols),
 *   `symbol_names` (space-separated qualified names of the symbols the chunk covers),
 *   `identifiers` (identifiers of the text split on camelCase/snake_case, lower-cased, unique,
 *   space-separated) and `text` (the chunk's source lines).
 * - `chunks_fts`: FTS5 (porter unicode61) over chunks(path, symbol_names, identifiers, text),
 *   external content; rowid = chunks.id; kept in sync by triggers. Query with
 *   `select c.*, bm25(chunks_fts) from chunks_fts join chunks c on c.id = chunks_fts.rowid where chunks_fts match ?`.
 * - `paths_fts`: FTS5 over files(path, path_tokens); rowid = files.id.
 * - vectors (written by embedding runs, not the indexer; see {@link ensureVectorTable}):
 *   `search_embedders(id, dimensions, table_name, updated_at)` records which embedders have vectors;
 *   `vec_<id>_<dims>` is a sqlite-vec `vec0` table per embedder (cosine; `chunk_id` = chunks.id, bound
 *   as BigInt), created when that embedder first runs since the set of embedders is open;
 *   `search_embedded(chunk_id, embedder_id, text_hash)` says which chunk text each vector was made
 *   from, and `search_retired` keeps those rows of deleted chunks (trigger `search_chunks_ad`), so the
 *   next run can reuse the vector of a deleted chunk for a new chunk with the same text.
 */
export const CURATED_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'files, symbols, references, dependencies, git history, rationale, tests, metadata, chunks + FTS',
    up: (db) =>
      db.exec(`
        create table index_meta (key text primary key, value text not null);
        create table files (
          id integer primary key,
          path text not null unique,
          language text not null,
          size integer not null,
          lines integer not null default 0,
          content_hash text,
          mtime_ms integer,
          is_test integer not null default 0,
          skip_reason text,
          encoding text,
          has_syntax_errors integer not null default 0,
          module_doc text,
          path_tokens text not null default '',
          indexed_at text not null
        );
        create index files_language on files(language);
        create table symbols (
          id integer primary key,
          file_id integer not null references files(id) on delete cascade,
          name text not null,
          qualified_name text not null,
          kind text not null,
          signature text not null default '',
          docstring text,
          start_line integer not null,
          end_line integer not null,
          parent_id integer references symbols(id) on delete cascade,
          is_exported integer not null default 0
        );
        create index symbols_file on symbols(file_id);
        create index symbols_name on symbols(name);
        create index symbols_parent on symbols(parent_id);
        create table symbol_references (
          id integer primary key,
          file_id integer not null references files(id) on delete cascade,
          from_symbol_id integer references symbols(id) on delete cascade,
          name text not null,
          kind text not null,
          line integer not null,
          target_symbol_id integer references symbols(id) on delete set null
        );
        create index refs_file on symbol_references(file_id);
        create index refs_from on symbol_references(from_symbol_id);
        create index refs_target on symbol_references(target_symbol_id);
        create table imports (
          id integer primary key,
          file_id integer not null references files(id) on delete cascade,
          specifier text not null,
          names_json text not null,
          alias text,
          level integer not null default 0,
          is_reexport integer not null default 0,
          is_system integer not null default 0,
          line integer not null
        );
        create index imports_file on imports(file_id);
        create table file_dependencies (
          from_file_id integer not null references files(id) on delete cascade,
          to_file_id integer not null references files(id) on delete cascade,
          kind text not null,
          specifier text not null,
          primary key (from_file_id, to_file_id, specifier)
        ) without rowid;
        create index deps_to on file_dependencies(to_file_id);
        create table commits (sha text primary key, author text not null, email text, date text not null, message text not null);
        create index commits_date on commits(date);
        create table file_commits (path text not null, sha text not null references commits(sha) on delete cascade, primary key (path, sha)) without rowid;
        create index file_commits_sha on file_commits(sha);
        create table co_changes (file_a text not null, file_b text not null, count integer not null, primary key (file_a, file_b)) without rowid;
        create index co_changes_b on co_changes(file_b);
        create table rationale_comments (
          id integer primary key,
          file_id integer not null references files(id) on delete cascade,
          symbol_id integer references symbols(id) on delete cascade,
          tag text not null,
          text text not null,
          line integer not null
        );
        create index rationale_file on rationale_comments(file_id);
        create index rationale_symbol on rationale_comments(symbol_id);
        create table test_links (
          test_file_id integer not null references files(id) on delete cascade,
          code_file_id integer not null references files(id) on delete cascade,
          kind text not null,
          primary key (test_file_id, code_file_id)
        ) without rowid;
        create index test_links_code on test_links(code_file_id);
        create table file_metadata (
          file_id integer primary key references files(id) on delete cascade,
          domain text,
          module text,
          concepts_json text not null default '[]',
          summary text,
          updated_at text not null
        );
        create table chunks (
          id integer primary key,
          file_id integer not null references files(id) on delete cascade,
          path text not null,
          start_line integer not null,
          end_line integer not null,
          kind text not null,
          symbol_names text not null default '',
          identifiers text not null default '',
          text text not null
        );
        create index chunks_file on chunks(file_id);
        create virtual table chunks_fts using fts5(path, symbol_names, identifiers, text, content='chunks', content_rowid='id', tokenize='porter unicode61');
        create virtual table paths_fts using fts5(path, path_tokens, content='files', content_rowid='id', tokenize='porter unicode61');
        ${FTS_TRIGGERS}
      `),
  },
  {
    version: 2,
    description: 'imports.is_module: a declaration that names a module file (Rust `mod x;`)',
    up: (db) => db.exec('alter table imports add column is_module integer not null default 0'),
  },
  {
    version: 3,
    description: 'vector bookkeeping: search_embedders, search_embedded, search_retired',
    // `if not exists`: before this migration, embedding runs created these tables themselves.
    up: (db) => db.exec(VECTOR_BOOKKEEPING),
  },
];

const VECTOR_BOOKKEEPING = `
  create table if not exists search_embedders (id text primary key, dimensions integer not null, table_name text not null, updated_at text);
  create table if not exists search_embedded (
    chunk_id integer not null, embedder_id text not null, text_hash text not null, primary key (chunk_id, embedder_id)
  ) without rowid;
  create index if not exists search_embedded_embedder on search_embedded(embedder_id);
  create table if not exists search_retired (chunk_id integer not null, embedder_id text not null, text_hash text not null);
`;

/**
 * Deleting a chunk retires its vector bookkeeping: a vector whose chunk is gone (or whose id was
 * reused) is never returned, and the next run can reuse it for a chunk with the same text. Created
 * with the first vector table, not by a migration: an index that was never embedded keeps SQLite's
 * fast whole-table delete when a full build empties `chunks`.
 */
const RETIRE_TRIGGER = `
  drop trigger if exists search_chunks_ad;
  create trigger search_chunks_ad after delete on chunks begin
    insert into search_retired (chunk_id, embedder_id, text_hash) select chunk_id, embedder_id, text_hash from search_embedded where chunk_id = old.id;
    delete from search_embedded where chunk_id = old.id;
  end;
`;

/** Table name of an embedder's vectors: `vec_<id as [a-z0-9_]>_<dims>`. */
export function vectorTableName(embedderId: string, dimensions: number): string {
  return `vec_${embedderId.toLowerCase().replace(/[^a-z0-9]+/g, '_')}_${dimensions}`;
}

/**
 * Bring a writable curated connection (sqlite-vec loaded) up to the current schema and create the
 * vector table of one embedder, its `search_embedders` row and the retire trigger when missing, in
 * one transaction. Returns the table's name. The only place vector tables are created.
 */
export function ensureVectorTable(db: Db, embedderId: string, dimensions: number): string {
  migrate(db, CURATED_MIGRATIONS, 'curated index');
  const table = vectorTableName(embedderId, dimensions);
  db.transaction(() => {
    db.exec(RETIRE_TRIGGER);
    db.exec(`create virtual table if not exists ${table} using vec0(chunk_id integer primary key, embedding float[${dimensions}] distance_metric=cosine)`);
    db.prepare('insert or ignore into search_embedders (id, dimensions, table_name, updated_at) values (?, ?, ?, null)').run(embedderId, dimensions, table);
  })();
  return table;
}
