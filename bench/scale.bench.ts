/**
 * Memory at scale (issue #12, item 6): builds one git repository of at least CRA_BENCH_SCALE_FILES
 * files (default 50,000) from source trees on this machine, indexes it once in a child process
 * (engineIndexChild.ts: the engine as the product wires it, `repos/add` then a no-op
 * `repos/reindex`) and reports wall, CPU, peak RSS, wall per file and the size of the index on disk. Building the corpus
 * copies hundreds of MB and the index takes minutes, so the suite runs only with CRA_BENCH_SCALE=1.
 *
 * Env: CRA_BENCH_SCALE=1 (run it), CRA_BENCH_SCALE_FILES (default 50000), CRA_BENCH_SCALE_SOURCES
 * (colon-separated folders copied in this order until the count is reached; default: this checkout's
 * node_modules, CRA_BENCH_DEVSET's clones, the newest /usr/lib/python3.*, /usr/include, /usr/share).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { runGitSync } from '../src/core/platform/git';
import { stdlibDir, type ChildResult } from './index.bench';
import { runIfMain } from './standalone';
import type { BenchContext, BenchFigure } from './types';

/** Files larger than this are not copied (the indexer leaves them out anyway). */
const MAX_FILE_BYTES = 1_000_000;
/** Folders never copied: other repositories' metadata and caches. */
const SKIP_DIRS = new Set(['.git', '.hg', '.svn', '__pycache__', '.cache']);

/** The default source folders, those that exist here. */
function defaultSources(): string[] {
  const sources = [join(__dirname, '..', 'node_modules')];
  if (process.env.CRA_BENCH_DEVSET) sources.push(process.env.CRA_BENCH_DEVSET);
  const stdlib = stdlibDir();
  if (stdlib) sources.push(stdlib);
  sources.push('/usr/include', '/usr/share');
  return sources.filter((dir) => existsSync(dir));
}

/**
 * Copy regular files from `sources` into `target/<n>-<name>/…` until `want` files are there
 * (symbolic links, oversize files and VCS folders left out). Returns the number copied per source.
 */
export function buildCorpus(sources: readonly string[], target: string, want: number): Array<{ source: string; files: number }> {
  let copied = 0;
  const counts: Array<{ source: string; files: number }> = [];
  sources.forEach((source, i) => {
    if (copied >= want) return;
    const before = copied;
    const walk = (from: string, to: string) => {
      let entries: string[];
      try {
        entries = readdirSync(from).sort();
      } catch {
        return; // unreadable folder: leave it out
      }
      for (const name of entries) {
        if (copied >= want) return;
        const path = join(from, name);
        const stat = lstatSync(path);
        if (stat.isDirectory()) {
          if (!SKIP_DIRS.has(name)) walk(path, join(to, name));
        } else if (stat.isFile() && stat.size <= MAX_FILE_BYTES) {
          mkdirSync(to, { recursive: true });
          try {
            copyFileSync(path, join(to, name));
            copied++;
          } catch {
            // unreadable file: leave it out
          }
        }
      }
    };
    walk(source, join(target, `${i}-${source.replace(/^\/+/, '').replace(/[/\\]+/g, '_')}`));
    counts.push({ source, files: copied - before });
  });
  return counts;
}

/** Total bytes of the files whose names start with `file` (the database, its -wal and -shm). */
function indexBytes(file: string): number {
  return ['', '-wal', '-shm'].map((suffix) => `${file}${suffix}`).filter(existsSync).reduce((sum, f) => sum + statSync(f).size, 0);
}

/** What engineIndexChild.ts prints: index.bench.ts's figures (no line count, no one-file pass) and the index file. */
type EngineChildResult = Omit<ChildResult, 'full'> & { full: Omit<ChildResult['full'], 'lines'>; curatedFile: string };

/** Index `root` through an engine over `dataDir` in a child process (loaded as bin/cra.js loads the CLI). */
function runEngineChild(root: string, dataDir: string): EngineChildResult {
  const launch = `require('tsx/cjs/api').register(); require(${JSON.stringify(join(__dirname, 'engineIndexChild.ts'))});`;
  const out = spawnSync(process.execPath, ['-e', launch, '--', 'engineIndexChild', root, dataDir], { cwd: join(__dirname, '..'), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (out.status !== 0) throw new Error(`index child failed: ${out.stderr.slice(-2000)}`);
  return JSON.parse(out.stdout.trim().split('\n').pop()!) as EngineChildResult;
}

/** The suite (a no-op unless CRA_BENCH_SCALE=1). */
export async function run(ctx: BenchContext): Promise<BenchFigure[]> {
  if (process.env.CRA_BENCH_SCALE !== '1') {
    ctx.log('CRA_BENCH_SCALE=1 not set: the ≥ 50k-file corpus takes minutes to build and index; skipped');
    return [];
  }
  const want = Number(process.env.CRA_BENCH_SCALE_FILES ?? 50_000);
  if (!Number.isInteger(want) || want < 1) throw new Error(`CRA_BENCH_SCALE_FILES must be a whole number of files, got ${process.env.CRA_BENCH_SCALE_FILES}`);
  const sources = process.env.CRA_BENCH_SCALE_SOURCES ? process.env.CRA_BENCH_SCALE_SOURCES.split(':').filter(Boolean) : defaultSources();
  const corpus = join(ctx.tmpDir, 'corpus');
  const buildStart = performance.now();
  const counts = buildCorpus(sources, corpus, want);
  const total = counts.reduce((n, c) => n + c.files, 0);
  ctx.log(`corpus: ${total} files from ${counts.map((c) => `${c.source} (${c.files})`).join(', ')}`);
  if (total < want) ctx.log(`corpus: only ${total} of ${want} files found; add folders with CRA_BENCH_SCALE_SOURCES`);
  const git = (...args: string[]) =>
    runGitSync(args, { cwd: corpus, maxBuffer: 1024 * 1024 * 1024, env: { GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@x', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@x' } });
  git('init', '-q');
  git('add', '-A', '-f');
  // No background `git gc --auto` after committing 50k files: it would write into .git while the suite's folder is removed.
  git('-c', 'gc.auto=0', 'commit', '-q', '-m', 'scale corpus');
  ctx.log(`corpus built and committed in ${Math.round((performance.now() - buildStart) / 1000)} s`);
  const result = runEngineChild(corpus, join(ctx.tmpDir, 'data'));
  const file = result.curatedFile;
  const full = result.full;
  const figures: BenchFigure[] = [
    { name: 'scale.files', value: total, unit: 'files', better: 'higher', note: `${full.parsed} parsed, ${full.skipped} skipped, ${full.symbols} symbols, ${full.references} references, ${full.chunks} chunks` },
    { name: 'scale.full.wallMs', value: Math.round(full.wallMs), unit: 'ms', better: 'lower', note: `load average ${loadavg()[0]!.toFixed(1)} at the end` },
    { name: 'scale.full.cpuMs', value: Math.round(full.cpuMs ?? 0), unit: 'ms', better: 'lower' },
    { name: 'scale.full.wallUsPerFile', value: Math.round((full.wallMs * 1000) / Math.max(1, total)), unit: 'µs/file', better: 'lower', note: 'wall time per corpus file' },
    { name: 'scale.full.peakRssMb', value: Math.round(result.maxRssKb / 1024), unit: 'MB', better: 'lower', note: 'target ≤ 1024 MB at 50k files' },
    { name: 'scale.index.mb', value: Math.round(indexBytes(file) / 1024 / 1024), unit: 'MB', better: 'lower', note: 'curated.sqlite with its -wal and -shm' },
    { name: 'scale.noop.wallMs', value: Math.round(result.noop.wallMs), unit: 'ms', better: 'lower' },
  ];
  return figures;
}

runIfMain(__filename, 'scale', run);
