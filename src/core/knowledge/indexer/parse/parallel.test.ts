import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../../platform/db/open';
import { indexRepository, type IndexOptions } from '../indexer';
import { defaultPoolSize, defaultWorkerScript, ParsePool, workerExecArgv } from './parsePool';
import { cleanupAfterEach, sharedExtractor } from '../../../testing/indexerHarness';
import { createTestRepo, type TestRepo } from '../../../testing/gitRepo';
import { writeSample } from '../../../testing/sampleRepo';

const extractor = sharedExtractor();
const cleanups = cleanupAfterEach();

function tempCurated(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cra-par-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'curated.sqlite');
}

function newRepo(): TestRepo {
  const repo = createTestRepo();
  cleanups.push(() => repo.cleanup());
  return repo;
}

/** 60 Python modules calling each other, plus the sample project: enough for the default pool. */
function writeMany(repo: TestRepo, count = 60): void {
  writeSample(repo);
  for (let i = 0; i < count; i++) {
    const prev = i === 0 ? 'pkg.util' : `gen.mod${i - 1}`;
    repo.write(
      `gen/mod${i}.py`,
      `"""Module ${i}."""\nfrom ${prev} import *\nimport pkg.core\n\n\nclass Thing${i}(pkg.core.Engine):\n    def go(self):\n        # NOTE: calls the base because the engine decides\n        return self.start()\n\n\ndef make${i}():\n    return Thing${i}().go()\n`,
    );
  }
  repo.write('gen/__init__.py', '');
  repo.commit('generated modules', 4);
}

function index(repo: TestRepo, curatedFile: string, extra: Partial<IndexOptions> = {}) {
  return indexRepository({ root: repo.root, curatedFile, extractor, ...extra });
}

/** Everything the indexer derives, as comparable rows (ids replaced by paths and names). */
function snapshot(curatedFile: string): Record<string, unknown[]> {
  const db: Db = openDatabase(curatedFile, { readOnly: true });
  try {
    const all = (sql: string) => db.prepare(sql).all();
    return {
      files: all('select path, language, lines, content_hash, skip_reason, has_syntax_errors, module_doc from files order by path'),
      symbols: all('select f.path, s.qualified_name, s.kind, s.signature, s.docstring, s.start_line, s.end_line, p.qualified_name as parent from symbols s join files f on f.id = s.file_id left join symbols p on p.id = s.parent_id order by f.path, s.start_line, s.qualified_name'),
      references: all('select f.path, r.name, r.kind, r.line, t.qualified_name as target from symbol_references r join files f on f.id = r.file_id left join symbols t on t.id = r.target_symbol_id order by f.path, r.line, r.name, r.kind'),
      dependencies: all('select a.path as from_path, b.path as to_path, d.kind, d.specifier from file_dependencies d join files a on a.id = d.from_file_id join files b on b.id = d.to_file_id order by 1, 2, 4'),
      chunks: all('select path, start_line, end_line, kind, symbol_names, identifiers from chunks order by path, start_line, kind'),
      rationale: all('select f.path, r.tag, r.line from rationale_comments r join files f on f.id = r.file_id order by 1, 3'),
      testLinks: all('select t.path as test, c.path as code, l.kind from test_links l join files t on t.id = l.test_file_id join files c on c.id = l.code_file_id order by 1, 2'),
    };
  } finally {
    db.close();
  }
}

describe('parallel parsing in worker threads', () => {
  it('finds the worker entry beside the indexer when running from the sources', () => {
    const script = defaultWorkerScript();
    expect(script).not.toBeNull();
    expect(existsSync(script!)).toBe(true);
  });

  it('sizes the default pool by cores, free memory and load: cores − 1 up to 4 workers, fewer when memory is short, none on a heavily overloaded machine', () => {
    const GB = 2 ** 30;
    const env = {};
    expect(defaultPoolSize(16, 1, 32 * GB, env)).toBe(4);
    expect(defaultPoolSize(8, 1, 8 * GB, env)).toBe(4);
    expect(defaultPoolSize(3, 1, 8 * GB, env)).toBe(2);
    expect(defaultPoolSize(2, 0.5, 8 * GB, env)).toBe(1);
    expect(defaultPoolSize(2, 2.5, 8 * GB, env)).toBe(1);
    expect(defaultPoolSize(2, 7, 8 * GB, env)).toBe(0);
    expect(defaultPoolSize(1, 0, 8 * GB, env)).toBe(0);
    // Free memory bounds it: 512 MB stay reserved, then 96 MB per worker.
    expect(defaultPoolSize(16, 1, 512 * 2 ** 20 + 2 * 96 * 2 ** 20, env)).toBe(2);
    expect(defaultPoolSize(16, 1, 600 * 2 ** 20, env)).toBe(0);
    // CRA_PARSE_WORKERS forces the size (the scaling experiment); anything but a number is ignored.
    expect(defaultPoolSize(2, 7, 1 * GB, { CRA_PARSE_WORKERS: '8' })).toBe(8);
    expect(defaultPoolSize(16, 1, 32 * GB, { CRA_PARSE_WORKERS: '0' })).toBe(0);
    expect(defaultPoolSize(16, 1, 32 * GB, { CRA_PARSE_WORKERS: 'many' })).toBe(4);
  });

  it('starts its workers under Node flags a worker refuses explicitly (a V8 flag beside a tsx loader)', () => {
    const repo = newRepo();
    repo.write('mod.py', 'def hello():\n    return 1\n');
    const pool = join(__dirname, 'parsePool.ts');
    const code = `
      const { ParsePool, defaultWorkerScript } = require(${JSON.stringify(pool)});
      const p = new ParsePool({ script: defaultWorkerScript(), size: 1, languages: ['python'] });
      p.prepare({ root: ${JSON.stringify(repo.root)}, relPath: 'mod.py', size: 30, maxFileBytes: 1e6, knownHash: null, knownSkipReason: null })
        .then((r) => { console.log(JSON.stringify(r.extraction.symbols.map((s) => s.name))); return p.terminate(); });`;
    const out = spawnSync(process.execPath, ['--no-liftoff', '--require', 'tsx/cjs', '-e', code], { cwd: join(__dirname, '..', '..', '..', '..', '..'), encoding: 'utf8', timeout: 60_000 });
    expect(out.stderr).not.toMatch(/ERR_WORKER_INVALID_EXEC_ARGV/);
    expect(out.stdout.trim()).toBe('["hello"]');
  });

  it('keeps the parent\'s Node flags for its workers, less tsx loaders (the worker entry registers its own)', () => {
    expect(workerExecArgv(['--import', 'tsx', '--max-old-space-size=4096'])).toEqual(['--max-old-space-size=4096']);
    expect(workerExecArgv(['--import=tsx', '-r', '/x/node_modules/tsx/dist/cjs/index.cjs', '--enable-source-maps'])).toEqual(['--enable-source-maps']);
    expect(workerExecArgv(['--require', './setup.js', '--loader=tsx/esm'])).toEqual(['--require', './setup.js']);
    expect(workerExecArgv(['--import', 'tsxtra'])).toEqual(['--import', 'tsxtra']);
  });

  it('writes exactly what the single-thread path writes, with workers alone or this thread helping', async () => {
    const repo = newRepo();
    writeMany(repo);
    const single = tempCurated();
    const a = await index(repo, single, { parallel: { workers: 0 } });
    expect(a.symbols).toBeGreaterThan(180);
    expect(a.dependencies).toBeGreaterThan(100);
    for (const parallel of [{ workers: 2, mainParses: false }, { workers: 1 }, { workers: 2 }]) {
      const curated = tempCurated();
      const b = await index(repo, curated, { parallel: { ...parallel, minFiles: 1 } });
      expect(b).toMatchObject({ files: a.files, symbols: a.symbols, references: a.references, dependencies: a.dependencies, chunks: a.chunks, parsed: a.parsed });
      expect(snapshot(curated)).toEqual(snapshot(single));
    }
  });

  it('uses workers for 50+ files (default threshold) and stays incremental afterwards', async () => {
    const repo = newRepo();
    writeMany(repo);
    const curated = tempCurated();
    const full = await index(repo, curated, { parallel: { workers: 2 } });
    expect(full.parsed).toBeGreaterThanOrEqual(70);
    repo.write('gen/mod5.py', 'def replaced():\n    return make4()\n');
    const again = await index(repo, curated);
    expect(again.parsed).toBe(1);
    const reference = tempCurated();
    await index(repo, reference, { parallel: { workers: 0 } });
    expect(snapshot(curated)).toEqual(snapshot(reference));
  });

  it('cancelling during parallel parsing stops the run and keeps the previous index', async () => {
    const repo = newRepo();
    writeSample(repo);
    const curated = tempCurated();
    const before = await index(repo, curated);
    const kept = snapshot(curated);
    writeMany(repo);
    const controller = new AbortController();
    const run = index(repo, curated, {
      parallel: { workers: 2, minFiles: 1 },
      signal: controller.signal,
      progress: (p) => p.phase === 'parsing' && p.done === 3 && controller.abort(),
    });
    await expect(run).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(snapshot(curated)).toEqual(kept);
    const after = await index(repo, curated);
    expect(after.files).toBeGreaterThan(before.files);
  });

  it('parses in its own thread when the workers cannot start at all', async () => {
    const repo = newRepo();
    writeMany(repo, 10);
    const curated = tempCurated();
    // A relative path makes Node refuse the worker at once (ERR_WORKER_PATH).
    const summary = await index(repo, curated, { parallel: { workers: 2, minFiles: 1, script: 'not/absolute.js' } });
    expect(summary.symbols).toBeGreaterThan(10);
    const db = openDatabase(curated, { readOnly: true });
    cleanups.push(() => db.close());
    expect(db.prepare("select count(*) from files f where language = 'python' and not exists (select 1 from symbols s where s.file_id = f.id)").pluck().get()).toBe(2);
  });

  it('a worker that dies leaves its file indexed as text and the rest parsed', async () => {
    const repo = newRepo();
    writeMany(repo, 10);
    repo.write('gen/crash_me.py', 'def never_seen():\n    return 1\n');
    repo.commit('a file the worker dies on', 5);
    const curated = tempCurated();
    const summary = await index(repo, curated, { parallel: { workers: 2, minFiles: 1, mainParses: false, script: join(__dirname, '..', '..', '..', 'testing', 'workers', 'crashingWorker.js') } });
    const db = openDatabase(curated, { readOnly: true });
    cleanups.push(() => db.close());
    const crashed = db.prepare("select id, skip_reason from files where path = 'gen/crash_me.py'").get() as { id: number; skip_reason: string | null };
    expect(crashed.skip_reason).toBeNull();
    expect(db.prepare('select count(*) from symbols where file_id = ?').pluck().get(crashed.id)).toBe(0);
    expect(db.prepare('select text from chunks where file_id = ?').pluck().all(crashed.id).join('\n')).toContain('never_seen');
    // Only the file the worker died on lost its symbols; the jobs queued behind it were redone.
    const withoutSymbols = db
      .prepare("select path from files f where language = 'python' and skip_reason is null and not exists (select 1 from symbols s where s.file_id = f.id) order by path")
      .pluck()
      .all();
    expect(withoutSymbols).toEqual(['gen/__init__.py', 'gen/crash_me.py', 'pkg/__init__.py']);
    // Every indexed file was written once (the three skipped ones are recorded, not parsed).
    expect(summary.parsed).toBe(summary.files);
    expect(summary.files).toBe(21);
  });

  it('with this thread helping, a file a dying worker had started is indexed as text, and this thread parses the rest', async () => {
    const repo = newRepo();
    writeMany(repo);
    const curated = tempCurated();
    const summary = await index(repo, curated, { parallel: { workers: 1, minFiles: 1, script: join(__dirname, '..', '..', '..', 'testing', 'workers', 'dyingWorker.js') } });
    const db = openDatabase(curated, { readOnly: true });
    cleanups.push(() => db.close());
    const withoutSymbols = db
      .prepare("select path from files f where language = 'python' and path not like '%__init__.py' and not exists (select 1 from symbols s where s.file_id = f.id)")
      .pluck()
      .all() as string[];
    // At most one file per worker the pool started (the first and two replacements): the one it
    // claimed and died on. The files queued behind it were parsed here (taken back, or once the
    // pool gave up); how many workers got to claim a file before this thread took theirs depends
    // on how fast they start.
    expect(withoutSymbols.length).toBeLessThanOrEqual(3);
    for (const path of withoutSymbols) expect(db.prepare('select count(*) from chunks c join files f on f.id = c.file_id where f.path = ?').pluck().get(path)).toBeGreaterThan(0);
    expect(summary.symbols).toBeGreaterThan(150);
    const single = await index(repo, tempCurated(), { parallel: { workers: 0 } });
    expect(summary).toMatchObject({ files: single.files, parsed: single.parsed });
  });

  it('with this thread helping, a worker that never starts its files does not hold the index up: this thread takes them back', async () => {
    const repo = newRepo();
    writeMany(repo);
    const single = tempCurated();
    await index(repo, single, { parallel: { workers: 0 } });
    const curated = tempCurated();
    await index(repo, curated, { parallel: { workers: 1, minFiles: 1, script: join(__dirname, '..', '..', '..', 'testing', 'workers', 'stuckWorker.js') } });
    expect(snapshot(curated)).toEqual(snapshot(single));
  });

  it('terminating the pool rejects outstanding jobs', async () => {
    const pool = new ParsePool({ script: defaultWorkerScript()!, size: 1, languages: ['python'] });
    const job = { root: __dirname, relPath: basename(__filename), size: 10, maxFileBytes: 1_000_000, knownHash: null, knownSkipReason: null };
    const pending = pool.prepare(job);
    await pool.terminate();
    await expect(pending).rejects.toThrow(/stopped/);
    await expect(pool.prepare(job)).rejects.toThrow(/gone/);
  });
});
