import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../platform/db/open';
import { BulkChunkIndex, tablesReferring } from './bulkBuild';
import { indexRepository, type IndexOptions } from './indexer';
import { countFiles } from './scan';
import { BULK_DEFERRED_INDEXES, CURATED_MIGRATIONS, FTS_TRIGGER_NAMES } from './schema';
import { cleanupAfterEach, sharedExtractor } from '../../testing/indexerHarness';
import { createTestRepo, type TestRepo } from '../../testing/gitRepo';
import { writeSample } from '../../testing/sampleRepo';

const extractor = sharedExtractor();
const cleanups = cleanupAfterEach();

function setup(gitRepo = true): { repo: TestRepo; curatedFile: string; index(extra?: Partial<IndexOptions>): ReturnType<typeof indexRepository>; open(): Db } {
  const repo = createTestRepo({ git: gitRepo });
  const data = mkdtempSync(join(tmpdir(), 'cra-data-'));
  const curatedFile = join(data, 'curated.sqlite');
  cleanups.push(() => {
    repo.cleanup();
    rmSync(data, { recursive: true, force: true });
  });
  return {
    repo,
    curatedFile,
    index: (extra = {}) => indexRepository({ root: repo.root, curatedFile, extractor, ...extra }),
    open: () => {
      const db = openDatabase(curatedFile, { readOnly: true });
      cleanups.push(() => db.close());
      return db;
    },
  };
}

const idOf = (db: Db, path: string) => db.prepare('select id from files where path = ?').pluck().get(path) as number;

describe('indexRepository on a real git repository', () => {
  it('indexes files, symbols, references, dependencies, tests, history and chunks', async () => {
    const env = setup();
    writeSample(env.repo);
    const summary = await env.index();
    expect(summary.skipped).toEqual([
      { path: 'assets/logo.bin', reason: 'binary' },
      { path: 'big.txt', reason: 'oversize' },
      { path: 'vendor/lib.min.js', reason: 'minified' },
    ]);
    expect(summary.files).toBe(9);
    // The three skipped files are recorded, not parsed.
    expect(summary.parsed).toBe(9);
    expect(summary.commits).toBe(3);
    const db = env.open();
    const names = db.prepare("select qualified_name from symbols s join files f on f.id = s.file_id where f.path = 'pkg/core.py' order by start_line").pluck().all();
    expect(names).toEqual(['Base', 'Base.run', 'Engine', 'Engine.start', 'Engine.stop']);
    // Dependencies, both directions.
    const core = idOf(db, 'pkg/core.py');
    const util = idOf(db, 'pkg/util.py');
    const deps = db.prepare('select from_file_id as f, to_file_id as t from file_dependencies').all() as Array<{ f: number; t: number }>;
    expect(deps).toContainEqual({ f: core, t: util });
    expect(deps).toContainEqual({ f: idOf(db, 'web/app.ts'), t: idOf(db, 'web/greet.ts') });
    expect(db.prepare('select count(*) from file_dependencies where to_file_id = ?').pluck().get(core)).toBeGreaterThanOrEqual(2);
    // References resolved to their targets.
    const target = (name: string, from: string) =>
      db
        .prepare(
          `select t.qualified_name from symbol_references r join symbols t on t.id = r.target_symbol_id join symbols s on s.id = r.from_symbol_id
           where r.name = ? and s.qualified_name = ? and r.file_id = ?`,
        )
        .pluck()
        .get(name, from, core);
    expect(target('self.stop', 'Engine.start')).toBe('Engine.stop');
    expect(target('self.run', 'Engine.start')).toBe('Base.run');
    expect(target('helper', 'Engine.start')).toBe('helper');
    expect(db.prepare("select count(*) from symbol_references where name = 'os.getcwd' and target_symbol_id is null").pluck().get()).toBe(1);
    // Rationale, docstrings, tests, git.
    expect(db.prepare('select tag, line from rationale_comments where file_id = ?').all(core)).toEqual([{ tag: 'TODO', line: 15 }]);
    expect(db.prepare('select module_doc from files where id = ?').pluck().get(core)).toContain('Core engine');
    const links = db.prepare('select t.path as test, c.path as code from test_links l join files t on t.id = l.test_file_id join files c on c.id = l.code_file_id order by 1, 2').all();
    expect(links).toContainEqual({ test: 'tests/test_core.py', code: 'pkg/core.py' });
    expect(links).toContainEqual({ test: 'web/greet.test.ts', code: 'web/greet.ts' });
    expect(db.prepare("select count from co_changes where file_a = 'pkg/core.py' and file_b = 'pkg/util.py'").pluck().get()).toBe(3);
    expect(db.prepare("select count(*) from file_commits where path = 'pkg/core.py'").pluck().get()).toBe(3);
    // Full-text search over chunks, including the latin1 file, and over paths.
    const hit = (q: string) => db.prepare('select c.path from chunks_fts join chunks c on c.id = chunks_fts.rowid where chunks_fts match ? order by bm25(chunks_fts)').pluck().all(q);
    expect(hit('frobnicator')).toEqual(['README.md']);
    expect(hit('ancien')).toEqual(['legacy.py']);
    expect(hit('crème')).toEqual(['legacy.py']);
    expect(hit('identifiers:start')).toContain('tests/test_core.py');
    expect(db.prepare("select path from paths_fts where paths_fts match 'greet' order by path").pluck().all()).toEqual(['web/greet.test.ts', 'web/greet.ts']);
    expect(db.prepare("select encoding from files where path = 'legacy.py'").pluck().get()).toBe('latin1');
  });

  it('skips commits touching more files than the bound when counting co-changes', async () => {
    const env = setup();
    writeSample(env.repo);
    await env.index({ maxFilesPerCommit: 5 });
    const db = env.open();
    // The initial commit touches 12 files and no longer counts.
    expect(db.prepare("select count from co_changes where file_a = 'pkg/core.py' and file_b = 'pkg/util.py'").pluck().get()).toBe(2);
    expect(db.prepare("select count(*) from co_changes where file_a = 'README.md'").pluck().get()).toBe(0);
  });

  it('re-indexes incrementally: no-op, one changed file, a deleted file', async () => {
    const env = setup();
    writeSample(env.repo);
    const first = await env.index();
    const db = env.open();
    const symbolIds = () => db.prepare('select id from symbols order by id').pluck().all();
    const before = symbolIds();

    const noop = await env.index();
    expect(noop.parsed).toBe(0);
    expect(noop.removed).toBe(0);
    expect({ ...noop, durationMs: 0, phaseMs: {} }).toEqual({ ...first, durationMs: 0, parsed: 0, phaseMs: {} });
    expect(Object.keys(noop.phaseMs)).toEqual(['scanning', 'git history', 'search index', 'saving']);
    expect(symbolIds()).toEqual(before);

    env.repo.write('pkg/util.py', 'CONSTANT = 6\n\n\ndef helper(x):\n    return x * 3\n\n\ndef extra():\n    return helper(1)\n');
    const changed = await env.index();
    expect(changed.parsed).toBe(1);
    expect(db.prepare("select name from symbols s join files f on f.id = s.file_id where f.path = 'pkg/util.py' order by s.start_line").pluck().all()).toEqual(['CONSTANT', 'helper', 'extra']);
    // A reference from another file to the re-parsed file resolves to the new symbol.
    expect(
      db.prepare("select t.name from symbol_references r join symbols t on t.id = r.target_symbol_id join files f on f.id = r.file_id where f.path = 'pkg/core.py' and r.name = 'helper'").pluck().get(),
    ).toBe('helper');
    // Untouched files keep their symbol rows.
    expect(db.prepare("select count(*) from symbols s join files f on f.id = s.file_id where f.path = 'pkg/core.py' and s.id in (" + before.join(',') + ')').pluck().get()).toBe(5);

    env.repo.remove('web/greet.ts');
    const removed = await env.index();
    expect(removed.removed).toBe(1);
    expect(db.prepare("select count(*) from files where path = 'web/greet.ts'").pluck().get()).toBe(0);
    expect(db.prepare("select count(*) from chunks where path = 'web/greet.ts'").pluck().get()).toBe(0);
    expect(db.prepare("select count(*) from chunks_fts where chunks_fts match 'greet' and path = 'web/greet.ts'").pluck().get()).toBe(0);
    expect(db.prepare('select count(*) from file_dependencies where to_file_id not in (select id from files)').pluck().get()).toBe(0);
  });

  it('links Rust `mod x;` declarations to their files, on a full index and when re-linked from the stored imports', async () => {
    const env = setup();
    env.repo.write('src/main.rs', 'mod net;\nmod store;\n\nfn main() {\n    net::get();\n}\n');
    env.repo.write('src/net.rs', 'pub fn get() {}\n');
    env.repo.write('src/store/mod.rs', 'pub struct Store;\n');
    env.repo.commit('a small crate');
    await env.index();
    const db = env.open();
    const depsOfMain = () =>
      db.prepare("select t.path from file_dependencies d join files f on f.id = d.from_file_id join files t on t.id = d.to_file_id where f.path = 'src/main.rs' order by t.path").pluck().all();
    expect(depsOfMain()).toEqual(['src/net.rs', 'src/store/mod.rs']);
    // A new file re-links every file's imports, main.rs's from what the index stored.
    env.repo.write('src/other.rs', 'pub fn other() {}\n');
    const again = await env.index();
    expect(again.parsed).toBe(1);
    expect(depsOfMain()).toEqual(['src/net.rs', 'src/store/mod.rs']);
  });

  it('reads only new commits when HEAD moved forward', async () => {
    const env = setup();
    writeSample(env.repo);
    await env.index();
    env.repo.write('pkg/util.py', 'CONSTANT = 9\n');
    env.repo.write('pkg/core.py', 'X = 1\n');
    env.repo.commit('fourth', 4);
    const summary = await env.index();
    expect(summary.commits).toBe(4);
    const db = env.open();
    expect(db.prepare("select count from co_changes where file_a = 'pkg/core.py' and file_b = 'pkg/util.py'").pluck().get()).toBe(4);
  });

  it('keeps the history bounded: past maxCommits an incremental pass holds what a full pass would (same commits, paths, co-change counts)', async () => {
    const env = setup();
    writeSample(env.repo);
    await env.index({ maxCommits: 3 });
    // Five more commits, each changing core.py with util.py or app.ts: the oldest pairs must leave the counts.
    for (let i = 0; i < 5; i++) {
      env.repo.write('pkg/core.py', `X = ${i}\n`);
      env.repo.write(i % 2 === 0 ? 'pkg/util.py' : 'web/app.ts', `// change ${i}\n`);
      env.repo.commit(`change ${i}`);
    }
    await env.index({ maxCommits: 3 });
    const dump = (db: Db) => ({
      commits: db.prepare('select sha, message from commits order by sha').all(),
      paths: db.prepare('select path, sha from file_commits order by sha, path').all(),
      pairs: db.prepare('select file_a, file_b, count from co_changes order by file_a, file_b').all(),
    });
    const incremental = dump(env.open());
    expect(incremental.commits.map((c) => (c as { message: string }).message).sort()).toEqual(['change 2', 'change 3', 'change 4']);
    const full = setup();
    const fresh = await indexRepository({ root: env.repo.root, curatedFile: full.curatedFile, extractor, maxCommits: 3 });
    expect(fresh.commits).toBe(3);
    expect(incremental).toEqual(dump(full.open()));
    expect(incremental.pairs).toContainEqual({ file_a: 'pkg/core.py', file_b: 'pkg/util.py', count: 2 });
  });

  it('leaves the previous index intact when a run is cancelled or fails', async () => {
    const env = setup();
    writeSample(env.repo);
    await env.index();
    const db = env.open();
    const snapshot = () => db.prepare('select (select count(*) from files), (select count(*) from symbols), (select count(*) from chunks), (select group_concat(content_hash) from files)').raw().get();
    const before = snapshot();
    for (let i = 0; i < 5; i++) env.repo.write(`pkg/more${i}.py`, `def f${i}():\n    return ${i}\n`);
    env.repo.write('pkg/util.py', 'CONSTANT = 100\n');

    const controller = new AbortController();
    const cancelled = env.index({ signal: controller.signal, progress: (p) => p.phase === 'parsing' && p.done === 2 && controller.abort() });
    await expect(cancelled).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(snapshot()).toEqual(before);

    const failing = env.index({ resolver: () => { throw new Error('injected failure'); } });
    await expect(failing).rejects.toThrow('injected failure');
    expect(snapshot()).toEqual(before);
    expect(db.prepare("select count(*) from chunks_fts where chunks_fts match 'frobnicator'").pluck().get()).toBe(1);

    const recovered = await env.index();
    expect(recovered.parsed).toBe(6);
  });

  it('a full rebuild restores the indexes and triggers it defers, as the migrations define them, also when it fails', async () => {
    const env = setup();
    writeSample(env.repo);
    const fresh = openDatabase(':memory:', { migrations: CURATED_MIGRATIONS });
    const schemaOf = (db: Db) => db.prepare("select type, name, sql from sqlite_master where type in ('index', 'trigger') and sql is not null order by name").all();
    const expected = schemaOf(fresh);
    const definitions = new Map(expected.map((row) => [(row as { name: string }).name, (row as { sql: string }).sql.toLowerCase()]));
    for (const index of BULK_DEFERRED_INDEXES) expect(definitions.get(index.name)).toBe(index.sql);
    fresh.close();

    const first = await env.index();
    const db = env.open();
    expect(schemaOf(db)).toEqual(expected);
    const refs = db.prepare('select count(*) from symbol_references').pluck().get() as number;
    expect(refs).toBeGreaterThan(0);
    // Full builds run without foreign-key enforcement: what they write must still satisfy every key,
    // and emptying the index must reach every table that hangs off files or commits.
    expect(db.pragma('foreign_key_check')).toEqual([]);
    // The search index built in batches during the run matches the chunks it indexes.
    const writable = openDatabase(env.curatedFile);
    expect(() => writable.exec("insert into chunks_fts(chunks_fts, rank) values ('integrity-check', 1)")).not.toThrow();
    writable.close();
    expect(tablesReferring(db, ['files', 'commits']).sort()).toEqual(
      ['chunks', 'file_commits', 'file_dependencies', 'file_metadata', 'imports', 'rationale_comments', 'symbol_references', 'symbols', 'test_links'].sort(),
    );
    const rowCounts = () =>
      Object.fromEntries(['files', ...tablesReferring(db, ['files', 'commits']), 'commits', 'co_changes'].map((t) => [t, db.prepare(`select count(*) from ${t}`).pluck().get()]));
    const countsBefore = rowCounts();
    await expect(env.index({ full: true, resolver: () => { throw new Error('injected failure'); } })).rejects.toThrow('injected failure');
    expect(schemaOf(db)).toEqual(expected);
    const again = await env.index({ full: true });
    expect(again.references).toBe(refs);
    expect({ ...again, durationMs: 0, phaseMs: {} }).toEqual({ ...first, durationMs: 0, phaseMs: {} });
    expect(rowCounts()).toEqual(countsBefore);
    expect(db.pragma('foreign_key_check')).toEqual([]);
    expect(schemaOf(db)).toEqual(expected);
    const plan = db.prepare('explain query plan select id from symbol_references where target_symbol_id = 1').all() as Array<{ detail: string }>;
    expect(plan.map((row) => row.detail).join(' ')).toMatch(/refs_target/);
  });

  it('builds a first index through a rollback journal and leaves it in WAL mode, also when the build fails or another connection is open', async () => {
    const journalOf = (file: string) => {
      const db = openDatabase(file, { readOnly: true });
      try {
        return db.pragma('journal_mode', { simple: true });
      } finally {
        db.close();
      }
    };
    const failing = setup();
    writeSample(failing.repo);
    await expect(failing.index({ resolver: () => { throw new Error('injected failure'); } })).rejects.toThrow('injected failure');
    expect(journalOf(failing.curatedFile)).toBe('wal');
    expect(existsSync(`${failing.curatedFile}-journal`)).toBe(false);
    const empty = openDatabase(failing.curatedFile, { readOnly: true });
    expect(empty.prepare('select count(*) from files').pluck().get()).toBe(0);
    empty.close();
    const recovered = await failing.index();
    expect(recovered.files).toBe(9);
    expect(journalOf(failing.curatedFile)).toBe('wal');

    // A reader holding the new database: the first build keeps the WAL (SQLite refuses the switch).
    const shared = setup();
    writeSample(shared.repo);
    const reader = openDatabase(shared.curatedFile, { migrations: CURATED_MIGRATIONS });
    reader.prepare('select count(*) from files').get();
    const summary = await shared.index();
    expect(summary.files).toBe(9);
    expect(reader.prepare('select count(*) from files where skip_reason is null').pluck().get()).toBe(9);
    expect(reader.pragma('journal_mode', { simple: true })).toBe('wal');
    reader.close();
  });

  it('handles an empty repository and one without commits', async () => {
    const empty = setup();
    const summary = await empty.index();
    expect(summary).toMatchObject({ files: 0, symbols: 0, commits: 0, chunks: 0, skipped: [] });

    const noCommits = setup();
    noCommits.repo.write('a.py', 'def a():\n    pass\n');
    const s2 = await noCommits.index();
    expect(s2).toMatchObject({ files: 1, symbols: 1, commits: 0, coChangePairs: 0 });
  });

  it('walks a folder outside git honouring .gitignore, without following symlinks', async () => {
    const env = setup(false);
    env.repo.write('.gitignore', 'build/\n*.log\n');
    env.repo.write('src/a.py', 'def a():\n    pass\n');
    env.repo.write('src/.gitignore', 'secret.py\n');
    env.repo.write('src/secret.py', 'x = 1\n');
    env.repo.write('build/out.py', 'x = 1\n');
    env.repo.write('debug.log', 'log\n');
    env.repo.write('node_modules/m/index.js', 'x\n');
    const { symlinkSync } = await import('node:fs');
    symlinkSync(env.repo.root, join(env.repo.root, 'src', 'loop'));
    const summary = await env.index();
    const db = env.open();
    expect(db.prepare('select path from files order by path').pluck().all()).toEqual(['.gitignore', 'src/.gitignore', 'src/a.py']);
    expect(summary.commits).toBe(0);
  });

  it('counts a folder outside git as the walk lists it, bounded by a limit; a git work tree is not counted', async () => {
    const env = setup(false);
    env.repo.write('.gitignore', 'build/\n');
    for (let i = 0; i < 40; i++) env.repo.write(`d${i % 8}/f${i}.py`, 'x = 1\n');
    env.repo.write('build/out.py', 'x = 1\n');
    env.repo.write('node_modules/m/index.js', 'x\n');
    expect(await countFiles(env.repo.root, 1000)).toEqual({ isGit: false, files: 41, capped: false });
    expect(await countFiles(env.repo.root, 10)).toEqual({ isGit: false, files: 10, capped: true });
    const git = setup();
    git.repo.write('a.py', 'x = 1\n');
    expect(await countFiles(git.repo.root, 10)).toEqual({ isGit: true, files: null, capped: false });
  });

  it('keeps what tree-sitter recovers from a file with syntax errors', async () => {
    const env = setup();
    env.repo.write('broken.py', 'def good():\n    return 1\n\ndef bad(:\n    pass\n\nclass Fine:\n    pass\n');
    await env.index();
    const db = env.open();
    expect(db.prepare("select has_syntax_errors from files where path = 'broken.py'").pluck().get()).toBe(1);
    expect(db.prepare('select name from symbols').pluck().all()).toEqual(expect.arrayContaining(['good', 'Fine']));
  });
});

describe('BulkChunkIndex', () => {
  it('indexes chunks in batches as they are written, to the same search results as one rebuild', () => {
    const build = (batched: boolean) => {
      const db = openDatabase(':memory:', { migrations: CURATED_MIGRATIONS });
      for (const name of FTS_TRIGGER_NAMES) db.exec(`drop trigger ${name}`);
      db.prepare("insert into files (id, path, language, size, lines, indexed_at) values (1, 'a.py', 'python', 1, 1, 'now')").run();
      const insert = db.prepare("insert into chunks (file_id, path, start_line, end_line, kind, symbol_names, identifiers, text) values (1, 'a.py', ?, ?, 'function', ?, '', ?)");
      const index = new BulkChunkIndex(db, 3);
      for (let round = 0; round < 5; round++) {
        // 0 to 4 chunks per file: batches of 3 fall inside, between and across files.
        const ids: number[] = [];
        for (let i = 0; i < round; i++) ids.push(Number(insert.run(round * 10 + i, round * 10 + i, `fn_${round}_${i}`, `def handler_${round}_${i}(): return shared_value + ${round}`).lastInsertRowid));
        if (batched) index.written(ids);
      }
      if (batched) index.catchUp();
      else db.exec("insert into chunks_fts(chunks_fts) values ('rebuild')");
      return db;
    };
    const batched = build(true);
    const rebuilt = build(false);
    const search = (db: Db, q: string) => db.prepare('select rowid, round(bm25(chunks_fts), 6) as score from chunks_fts where chunks_fts match ? order by rowid').all(q);
    expect(search(batched, 'shared').length).toBe(10);
    for (const q of ['shared', 'handler_3_1', 'fn_4_3', 'value']) expect(search(batched, q)).toEqual(search(rebuilt, q));
    expect(() => batched.exec("insert into chunks_fts(chunks_fts, rank) values ('integrity-check', 1)")).not.toThrow();
    batched.close();
    rebuilt.close();
  });
});
