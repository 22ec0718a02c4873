/**
 * Index benchmark: full-index throughput (files/s, lines/s, wall ms) and peak RSS, no-op re-index
 * and one-file-changed re-index, on the Python standard library (copied into a temporary git
 * repository so a file can be changed) and on this repository; `ctags -R` timed on the same
 * corpus in the same run as the reference ratio. Medians of CRA_BENCH_INDEX_RUNS (default 3) runs.
 *
 * Env: CRA_BENCH_STDLIB (default: the newest /usr/lib/python3.*), CRA_BENCH_INDEX_RUNS,
 * CRA_BENCH_REPO (default: this checkout).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { runGitSync } from '../src/core/platform/git';
import type { BenchContext, BenchFigure } from './types';

export interface ChildResult {
  full: { wallMs: number; cpuMs?: number; files: number; parsed: number; symbols: number; references: number; chunks: number; skipped: number; lines: number; phaseMs?: Record<string, number> };
  noop: { wallMs: number; cpuMs?: number; parsed: number };
  oneFile: { wallMs: number; cpuMs?: number; parsed: number } | null;
  maxRssKb: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** The newest /usr/lib/python3.N folder, or null. */
export function stdlibDir(): string | null {
  if (process.env.CRA_BENCH_STDLIB) return process.env.CRA_BENCH_STDLIB;
  const dirs = readdirSync('/usr/lib')
    .filter((d) => /^python3\.\d+$/.test(d))
    .sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]));
  return dirs.length ? join('/usr/lib', dirs[dirs.length - 1]!) : null;
}

export function runChild(root: string, curatedFile: string, touch?: string): ChildResult {
  rmSync(curatedFile, { force: true });
  rmSync(`${curatedFile}-wal`, { force: true });
  rmSync(`${curatedFile}-shm`, { force: true });
  // Loaded the way bin/cra.js loads the CLI (tsx's CommonJS hook in-process, no Node flags the
  // parse workers would inherit), so the figures are what `cra index` does.
  const launch = `require('tsx/cjs/api').register(); require(${JSON.stringify(join(__dirname, 'indexChild.ts'))});`;
  const args = ['-e', launch, '--', 'indexChild', root, curatedFile, ...(touch ? [touch] : [])];
  const out = spawnSync(process.execPath, args, { cwd: join(__dirname, '..'), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (out.status !== 0) throw new Error(`index child failed: ${out.stderr.slice(-2000)}`);
  return JSON.parse(out.stdout.trim().split('\n').pop()!) as ChildResult;
}

/** ctags over the same files the indexer lists: `git ls-files` in a git repository, else `-R`. */
function timeCtags(corpus: string, tagsFile: string): number {
  const isGit = existsSync(join(corpus, '.git'));
  const list = isGit ? runGitSync(['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: corpus, maxBuffer: 64 * 1024 * 1024 }) : '';
  const started = performance.now();
  if (isGit) execFileSync('ctags', ['--fields=+n', '-f', tagsFile, '-L', '-'], { cwd: corpus, input: list, stdio: ['pipe', 'ignore', 'ignore'] });
  else execFileSync('ctags', ['-R', '--fields=+n', '-f', tagsFile, corpus], { stdio: 'ignore' });
  return performance.now() - started;
}

function measure(ctx: BenchContext, label: string, root: string, runs: number, touch?: string): BenchFigure[] {
  const results: ChildResult[] = [];
  const ctags: number[] = [];
  for (let i = 0; i < runs; i++) {
    ctags.push(timeCtags(root, join(ctx.tmpDir, `${label}.tags`)));
    const r = runChild(root, join(ctx.tmpDir, `${label}.sqlite`), touch);
    results.push(r);
    ctx.log(`${label} run ${i + 1}/${runs}: full ${Math.round(r.full.wallMs)} ms (${r.full.parsed} files), no-op ${Math.round(r.noop.wallMs)} ms` +
      (r.oneFile ? `, one file ${Math.round(r.oneFile.wallMs)} ms` : '') + `, ctags ${Math.round(ctags[i]!)} ms, RSS ${Math.round(r.maxRssKb / 1024)} MB`);
  }
  const full = median(results.map((r) => r.full.wallMs));
  const last = results[results.length - 1]!.full;
  const ctagsMs = median(ctags);
  const figures: BenchFigure[] = [
    { name: `${label}.full.wallMs`, value: Math.round(full), unit: 'ms', better: 'lower', note: `${last.parsed} files, ${last.lines} lines, ${last.symbols} symbols, ${last.chunks} chunks, ${last.skipped} skipped` },
    { name: `${label}.full.cpuMs`, value: Math.round(median(results.map((r) => r.full.cpuMs ?? 0))), unit: 'ms', better: 'lower', note: 'CPU time of the indexing process (user + system); robust to a busy machine' },
    { name: `${label}.full.filesPerSecond`, value: Math.round((last.parsed / full) * 1000 * 10) / 10, unit: 'files/s', better: 'higher' },
    { name: `${label}.full.linesPerSecond`, value: Math.round((last.lines / full) * 1000), unit: 'lines/s', better: 'higher' },
    { name: `${label}.full.peakRssMb`, value: Math.round(median(results.map((r) => r.maxRssKb)) / 1024), unit: 'MB', better: 'lower' },
    { name: `${label}.noop.wallMs`, value: Math.round(median(results.map((r) => r.noop.wallMs))), unit: 'ms', better: 'lower', note: 'target < 1000 ms' },
    { name: `${label}.ctags.wallMs`, value: Math.round(ctagsMs), unit: 'ms', better: 'lower', note: 'ctags --fields=+n over the same file list' },
    { name: `${label}.full.ctagsRatio`, value: Math.round((full / ctagsMs) * 10) / 10, unit: 'ratio', better: 'lower', note: 'full index wall / ctags wall; target ≤ 10' },
  ];
  for (const phase of Object.keys(last.phaseMs ?? {})) {
    const values = results.map((r) => r.full.phaseMs?.[phase]).filter((v): v is number => v !== undefined);
    figures.push({ name: `${label}.full.phase.${phase.replace(/\s+(\w)/g, (_, c: string) => c.toUpperCase())}Ms`, value: Math.round(median(values)), unit: 'ms', better: 'lower', note: 'wall time of this phase of the full index (median)' });
  }
  const oneFile = results.map((r) => r.oneFile?.wallMs).filter((v): v is number => v !== undefined);
  if (oneFile.length > 0) figures.push({ name: `${label}.oneFile.wallMs`, value: Math.round(median(oneFile)), unit: 'ms', better: 'lower', note: 'target < 500 ms' });
  const cpuOf = (values: Array<number | undefined>) => values.filter((v): v is number => v !== undefined);
  const noopCpu = cpuOf(results.map((r) => r.noop.cpuMs));
  if (noopCpu.length > 0) figures.push({ name: `${label}.noop.cpuMs`, value: Math.round(median(noopCpu)), unit: 'ms', better: 'lower' });
  const oneFileCpu = cpuOf(results.map((r) => r.oneFile?.cpuMs));
  if (oneFileCpu.length > 0) figures.push({ name: `${label}.oneFile.cpuMs`, value: Math.round(median(oneFileCpu)), unit: 'ms', better: 'lower' });
  figures.push({ name: `${label}.loadAverage1m`, value: Math.round(loadavg()[0]! * 10) / 10, unit: 'load', better: 'lower', note: 'machine load when the runs ended (wall figures are unreliable when it exceeds the core count)' });
  return figures;
}

/** The suite: stdlib copy in a temp git repository, then this repository in place (read only). */
export async function run(ctx: BenchContext): Promise<BenchFigure[]> {
  const runs = Number(process.env.CRA_BENCH_INDEX_RUNS ?? 3);
  const figures: BenchFigure[] = [];
  const stdlib = stdlibDir();
  if (stdlib && existsSync(stdlib)) {
    const copy = join(ctx.tmpDir, 'stdlib');
    cpSync(stdlib, copy, { recursive: true, verbatimSymlinks: true, filter: (src) => !src.includes('__pycache__') && !src.endsWith('site-packages') && !src.endsWith('dist-packages') });
    const git = (...args: string[]) => runGitSync(args, { cwd: copy, env: { GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@x', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@x' } });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-q', '-m', 'stdlib');
    ctx.log(`stdlib: ${stdlib} copied to a temporary git repository`);
    figures.push(...measure(ctx, 'stdlib', copy, runs, 'json/__init__.py'));
  } else {
    ctx.log('stdlib: no /usr/lib/python3.* here; skipped');
  }
  const repo = resolve(process.env.CRA_BENCH_REPO ?? join(__dirname, '..'));
  figures.push(...measure(ctx, 'thisRepo', repo, runs));
  return figures;
}
