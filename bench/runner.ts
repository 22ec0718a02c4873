import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, release, tmpdir, totalmem, type } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { runGitSync } from '../src/core/platform/git';
import type { BenchFigure, BenchResultFile, BenchRun, MachineDescription } from './types';

/**
 * `npm run bench`: runs every `bench/*.bench.ts` module's exported `run()` one after another and
 * writes all their figures, with a description of the machine, into one JSON file.
 * `npm run bench -- --compare A.json B.json` prints B/A per figure instead.
 */

const BENCH_DIR = __dirname;

/** The machine the figures come from: CPU, cores, memory, Node, OS and the checkout's git sha. */
export function describeMachine(cwd = BENCH_DIR): MachineDescription {
  const cpu = cpus();
  const gitOut = (args: string[]) => {
    try {
      return runGitSync(args, { cwd }).trim();
    } catch {
      return null;
    }
  };
  const sha = gitOut(['rev-parse', 'HEAD']);
  const status = sha ? gitOut(['status', '--porcelain', '--untracked-files=no']) : null;
  return {
    cpuModel: cpu[0]?.model.trim() ?? 'unknown',
    cores: cpu.length,
    memoryBytes: totalmem(),
    node: process.versions.node,
    os: `${type()} ${release()}`,
    arch: process.arch,
    gitSha: sha,
    gitDirty: status === null ? null : status !== '',
  };
}

/** The suite modules: `<name>.bench.ts` files in the bench folder, sorted by name. */
export function suiteFiles(dir = BENCH_DIR): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.bench.ts'))
    .sort()
    .map((f) => join(dir, f));
}

/** Run the suites (all, or those named in `only`) and return the result file's content. */
export async function runSuites(files: string[], only: string[] = []): Promise<BenchResultFile> {
  const result: BenchResultFile = { format: 'clean-room-bench/1', createdAt: new Date().toISOString(), machine: describeMachine(), suites: {} };
  for (const file of files) {
    const name = basename(file, '.bench.ts');
    if (only.length > 0 && !only.includes(name)) continue;
    const tmp = mkdtempSync(join(tmpdir(), `cra-bench-${name}-`));
    const started = performance.now();
    process.stderr.write(`bench: ${name}\n`);
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const mod = require(file) as { run?: BenchRun };
      if (typeof mod.run !== 'function') throw new Error(`${file} exports no run() function`);
      const figures = await mod.run({ tmpDir: tmp, log: (m) => process.stderr.write(`  ${name}: ${m}\n`) });
      result.suites[name] = { figures, ms: Math.round(performance.now() - started) };
    } catch (error) {
      // One broken suite must not lose the others' figures.
      result.suites[name] = { figures: [], ms: Math.round(performance.now() - started), error: (error as Error).message };
      process.stderr.write(`bench: ${name} failed: ${(error as Error).message}\n`);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  return result;
}

/** One line of a comparison. */
export interface ComparedFigure {
  key: string;
  unit: string;
  a?: number;
  b?: number;
  /** b / a, when both exist and a is not 0. */
  ratio?: number;
  verdict: 'better' | 'worse' | 'same' | 'only in A' | 'only in B' | 'n/a';
}

/** Compare two result files figure by figure (b relative to a); ±3% counts as the same. */
export function compareResults(a: BenchResultFile, b: BenchResultFile): ComparedFigure[] {
  const index = (file: BenchResultFile) => {
    const map = new Map<string, BenchFigure>();
    for (const [suite, { figures }] of Object.entries(file.suites)) for (const f of figures) map.set(`${suite}/${f.name}`, f);
    return map;
  };
  const ia = index(a);
  const ib = index(b);
  const keys = [...new Set([...ia.keys(), ...ib.keys()])].sort();
  return keys.map((key) => {
    const fa = ia.get(key);
    const fb = ib.get(key);
    const unit = (fb ?? fa)!.unit;
    if (!fa) return { key, unit, b: fb!.value, verdict: 'only in B' };
    if (!fb) return { key, unit, a: fa.value, verdict: 'only in A' };
    if (fa.value === 0) return { key, unit, a: fa.value, b: fb.value, verdict: fb.value === 0 ? 'same' : 'n/a' };
    const ratio = fb.value / fa.value;
    const better = fb.better === 'higher' ? ratio > 1.03 : ratio < 0.97;
    const worse = fb.better === 'higher' ? ratio < 0.97 : ratio > 1.03;
    return { key, unit, a: fa.value, b: fb.value, ratio, verdict: better ? 'better' : worse ? 'worse' : 'same' };
  });
}

/** The comparison as a table for people. */
export function formatComparison(a: BenchResultFile, b: BenchResultFile, rows: ComparedFigure[]): string {
  const machine = (m: MachineDescription) => `${m.cpuModel}, ${m.cores} cores, ${(m.memoryBytes / 2 ** 30).toFixed(1)} GiB, Node ${m.node}, ${m.gitSha?.slice(0, 10) ?? 'no git'}`;
  const num = (n?: number) => (n === undefined ? '-' : Number.isInteger(n) ? String(n) : n.toPrecision(4));
  const width = Math.max(6, ...rows.map((r) => r.key.length));
  const lines = [`A: ${a.createdAt}  ${machine(a.machine)}`, `B: ${b.createdAt}  ${machine(b.machine)}`];
  if (a.machine.cpuModel !== b.machine.cpuModel || a.machine.cores !== b.machine.cores) lines.push('Note: different machines; ratios compare machines as much as code.');
  lines.push('', `${'figure'.padEnd(width)}  ${'A'.padStart(10)}  ${'B'.padStart(10)}  ${'B/A'.padStart(7)}  verdict`);
  for (const r of rows) {
    lines.push(`${r.key.padEnd(width)}  ${num(r.a).padStart(10)}  ${num(r.b).padStart(10)}  ${(r.ratio === undefined ? '-' : r.ratio.toFixed(3)).padStart(7)}  ${r.verdict} (${r.unit})`);
  }
  return `${lines.join('\n')}\n`;
}

function readResult(file: string): BenchResultFile {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as BenchResultFile;
  if (parsed.format !== 'clean-room-bench/1') throw new Error(`${file} is not a bench result (format ${String(parsed.format)}).`);
  return parsed;
}

/**
 * The name of a run's file in bench/results/: its date and the commit it measured, so runs of
 * different commits sort by time and compare with `--compare` (`-dirty` when the tree had changes).
 */
export function resultFileName(result: Pick<BenchResultFile, 'createdAt' | 'machine'>): string {
  const commit = result.machine.gitSha ? `${result.machine.gitSha.slice(0, 10)}${result.machine.gitDirty ? '-dirty' : ''}` : 'no-git';
  return `${result.createdAt.replace(/[:.]/g, '-')}-${commit}.json`;
}

/** Entry point of bin/bench.js: `[--only a,b] [--out FILE]` or `--compare A.json B.json`. */
export async function main(argv: string[]): Promise<void> {
  const at = (flag: string) => argv.indexOf(flag);
  if (at('--compare') >= 0) {
    const [fa, fb] = argv.slice(at('--compare') + 1);
    if (!fa || !fb) throw new Error('usage: npm run bench -- --compare A.json B.json');
    const a = readResult(resolve(fa));
    const b = readResult(resolve(fb));
    process.stdout.write(formatComparison(a, b, compareResults(a, b)));
    return;
  }
  const only = at('--only') >= 0 ? (argv[at('--only') + 1] ?? '').split(',').filter(Boolean) : [];
  const result = await runSuites(suiteFiles(), only);
  const out = at('--out') >= 0 ? resolve(argv[at('--out') + 1] ?? '') : join(BENCH_DIR, 'results', resultFileName(result));
  mkdirSync(join(out, '..'), { recursive: true });
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  const count = Object.values(result.suites).reduce((n, s) => n + s.figures.length, 0);
  process.stdout.write(`${count} figure(s) from ${Object.keys(result.suites).length} suite(s) written to ${out}\n`);
  if (Object.values(result.suites).some((s) => s.error)) process.exitCode = 1;
}
