/**
 * The performance check CI runs (scripts/perf-check.mjs, issue #25 item 4): a few whole-process
 * figures, each as a ratio to a reference measured in the same run and interleaved with it, so a
 * busy machine slows both alike. It fails (exit 1) when a ratio passes its threshold, 1.5× the
 * target (1.5× today's figure where the target is not met yet, {@link NOT_YET_MET}): generous, so
 * noise on a loaded 2-core machine does not fail the build, while a change that makes start-up,
 * search, chat or indexing clearly slower does.
 *
 * - start-up: `cra --version` against `node -e 0` (target 1.5×);
 * - search: `cra search` on an indexed 1,000-file repository against `node -e 0` (target 2.5×);
 * - chat: `cra chat --mode keyword --json` to its sources line, loopback model server (target 3×);
 * - index: `cra index` (full, fresh data folder) against `ctags -L` on the same files, wall and CPU.
 *
 * Env: CRA_PERF_RUNS (runs per start-up figure, default 7), CRA_PERF_INDEX_RUNS (default 3).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { runGitSync } from '../src/core/platform/git';
import { packageRoot } from '../src/core/platform/paths';
import { OllamaTestServer } from '../src/core/testing/ollamaTestServer';
import { copyCorpus, corpusRoots } from './cli.bench';
import { timeToSources } from './processTiming';

/** One checked figure: the median of the per-round ratios of the measured command to its reference. */
export interface CheckedFigure {
  name: string;
  ms: number;
  referenceMs: number;
  ratio: number;
  target: number;
  /** Fails above this: 1.5× the target, or 1.5× today's figure where the target is not met yet. */
  threshold: number;
}

/**
 * Today's figures where a target is not met yet, rounded up past their spread (bench/README.md,
 * issue #25: perf-check on the 2-core development machine at load 1–6, 2026-11-27 — index
 * 10.5–11.5× wall and 19.1–20.4× CPU): the check then guards against getting worse than 1.5× these.
 * Search (2.36–2.55× over five runs; 2.6–2.8× at load 4–6) and chat (2.75×, seventh round) meet their
 * targets at low load, so they fail above 1.5× the target (3.75×, 4.5×).
 */
export const NOT_YET_MET: Record<string, number> = { indexWall: 13, indexCpu: 21 };

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** Wall time (ms) of one process, which must exit 0. */
function wall(command: string, args: string[], cwd?: string): number {
  const started = performance.now();
  const result = spawnSync(command, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return ms;
}

/** Wall and CPU (user + system of the process and its children, from bash's `times`) of one command. */
function wallAndCpu(command: string, args: string[], options: { cwd?: string; input?: string } = {}): { wallMs: number; cpuMs: number } {
  const started = performance.now();
  const result = spawnSync('bash', ['-c', '"$@" >/dev/null 2>/dev/null; status=$?; times; exit $status', 'perf-check', command, ...args], { cwd: options.cwd, input: options.input, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const wallMs = performance.now() - started;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}`);
  const children = result.stdout.trim().split('\n').pop() ?? '';
  const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
  return { wallMs, cpuMs: (seconds.reduce((a, b) => a + b, 0) || NaN) * 1000 };
}

/**
 * A figure from its samples and its reference's, taken in rounds (sample i beside reference i): the
 * medians, the median of the rounds' ratios (a burst of load slows both sides of a round), the threshold.
 */
export const figure = (name: string, ms: number[], reference: number[], target: number, today?: number): CheckedFigure => {
  const ratio = median(ms.map((m, i) => m / reference[i]!));
  return { name, ms: Math.round(median(ms)), referenceMs: Math.round(median(reference)), ratio: Math.round(ratio * 100) / 100, target, threshold: Math.round(Math.max(target, today ?? 0) * 1.5 * 100) / 100 };
};

/** Run the check in `tmpDir`; the figures, in the order printed. */
export async function measure(tmpDir: string, log: (line: string) => void): Promise<CheckedFigure[]> {
  const cra = join(packageRoot(), 'bin', 'cra.js');
  const runs = Number(process.env.CRA_PERF_RUNS ?? 7);
  const repo = join(tmpDir, 'repo');
  const dataDir = join(tmpDir, 'data');
  mkdirSync(repo, { recursive: true });
  const files = copyCorpus(corpusRoots(), repo, 1000);
  const git = (...args: string[]) => runGitSync(args, { cwd: repo, env: { GIT_AUTHOR_NAME: 'perf', GIT_AUTHOR_EMAIL: 'perf@example.invalid', GIT_COMMITTER_NAME: 'perf', GIT_COMMITTER_EMAIL: 'perf@example.invalid' } });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'corpus');
  const list = runGitSync(['ls-files'], { cwd: repo, maxBuffer: 64 * 1024 * 1024 });
  log(`corpus: ${files} files (${corpusRoots().join(', ')})`);

  // Index: full, fresh data folder each time, against ctags on the same file list.
  const index = { wall: [] as number[], cpu: [] as number[], ctagsWall: [] as number[], ctagsCpu: [] as number[] };
  for (let i = 0; i < Number(process.env.CRA_PERF_INDEX_RUNS ?? 3); i++) {
    const ctags = wallAndCpu('ctags', ['--fields=+n', '-f', join(tmpDir, 'tags'), '-L', '-'], { cwd: repo, input: list });
    const ours = wallAndCpu(process.execPath, [cra, '--data-dir', join(tmpDir, `data-index-${i}`), 'index', repo, '--json']);
    index.ctagsWall.push(ctags.wallMs);
    index.ctagsCpu.push(ctags.cpuMs);
    index.wall.push(ours.wallMs);
    index.cpu.push(ours.cpuMs);
  }
  // The search and chat repository, indexed once; the loopback model server for chat.
  wall(process.execPath, [cra, '--data-dir', dataDir, 'index', repo, '--json']);
  const server = await OllamaTestServer.start();
  server.install('qwen3:0.6b');
  writeFileSync(join(dataDir, 'config.toml'), `[models]\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\nbase_url = "${server.url}"\n`);
  const queries = ['json decoder', 'parse url query string', 'thread pool executor', 'gzip compress', 'email header encoding', 'tempfile mkdtemp', 'socket timeout'];
  const node: number[] = [];
  const version: number[] = [];
  const search: number[] = [];
  const chat: number[] = [];
  try {
    wall(process.execPath, [cra, '--version']); // the first start reads from disk and writes the code cache
    await timeToSources([cra, '--data-dir', dataDir, 'chat', 'How is a JSON document decoded?', '--repo', repo, '--mode', 'keyword', '--json']);
    for (let i = 0; i < runs; i++) {
      node.push(wall(process.execPath, ['-e', '0']));
      version.push(wall(process.execPath, [cra, '--version']));
      search.push(wall(process.execPath, [cra, '--data-dir', dataDir, 'search', queries[i % queries.length]!, '--repo', repo, '--json']));
      chat.push(await timeToSources([cra, '--data-dir', dataDir, 'chat', `Where is ${queries[i % queries.length]} handled?`, '--repo', repo, '--mode', 'keyword', '--json']));
    }
  } finally {
    await server.close();
  }
  return [
    figure('start-up: cra --version / node -e 0', version, node, 1.5),
    figure(`search: cra search (${files} files) / node -e 0`, search, node, 2.5, NOT_YET_MET.search),
    figure('chat: cra chat to its sources line / node -e 0', chat, node, 3, NOT_YET_MET.chat),
    figure('index: cra index wall / ctags wall', index.wall, index.ctagsWall, 7, NOT_YET_MET.indexWall),
    figure('index: cra index CPU / ctags CPU', index.cpu, index.ctagsCpu, 10, NOT_YET_MET.indexCpu),
  ];
}

/** The table people read in the CI log. */
export function formatFigures(figures: CheckedFigure[]): string {
  const width = Math.max(...figures.map((f) => f.name.length));
  const verdict = (f: CheckedFigure) => (f.ratio > f.threshold ? 'FAIL' : f.ratio > f.target ? 'slow' : 'ok  ');
  const lines = figures.map((f) => `${verdict(f)}  ${f.name.padEnd(width)}  ${String(f.ms).padStart(6)} ms / ${String(f.referenceMs).padStart(5)} ms = ${f.ratio.toFixed(2).padStart(5)}×  (target ${f.target}×, fails above ${f.threshold}×)`);
  return `${lines.join('\n')}\nok: target met; slow: target not met, not clearly worse than today; FAIL: clearly worse\nload average ${loadavg()[0]!.toFixed(1)} at the end; medians, each command interleaved with its reference\n`;
}

/** Entry point of scripts/perf-check.mjs: prints the table; exit 1 when a figure passes its threshold. */
export async function main(tmpDir: string): Promise<number> {
  const log = (line: string) => process.stdout.write(`perf-check: ${line}\n`);
  const figures = await measure(tmpDir, log);
  process.stdout.write(formatFigures(figures));
  let failed = figures.filter((f) => f.ratio > f.threshold);
  if (failed.length > 0) {
    // A burst of load can push one round over: measure once more, and fail only on a figure that fails both times.
    log(`${failed.map((f) => f.name).join('; ')} above the threshold; measuring again to tell a regression from noise`);
    const again = await measure(join(tmpDir, 'again'), log);
    process.stdout.write(formatFigures(again));
    failed = again.filter((f) => f.ratio > f.threshold && failed.some((first) => first.name === f.name));
  }
  if (failed.length > 0) process.stdout.write(`perf-check: ${failed.length} figure(s) clearly worse than their target: ${failed.map((f) => f.name).join('; ')}\n`);
  return failed.length > 0 ? 1 : 0;
}
