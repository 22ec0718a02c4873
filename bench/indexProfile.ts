/**
 * Where the CPU of a full index goes, by phase (issue #25): `node scripts/index-profile.mjs <repo>`
 * runs `cra index` from the sources under `node --cpu-prof`, which writes one profile per thread
 * (the engine thread and every parse worker), and attributes each sample to the phase of its
 * innermost recognisable frame: the tree-sitter parse (`Parser.parse`), the query walk
 * (`Query.captures`), the language handlers, chunking, reading, SQLite writes, linking, history…
 *
 * The profiler inflates what it samples unevenly (WASM and short JS calls more than SQLite), so the
 * shares are a guide; `CRA_PARSE_WORKERS=0` profiles one thread. With workers, the engine thread's
 * own table follows (the part that does not run in parallel). Env: CRA_PARSE_WORKERS;
 * CRA_PROFILE_KEEP=1 keeps the .cpuprofile files (for Chrome's DevTools).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../src/core/platform/paths';

/** The parts of a `.cpuprofile` this reads. */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string }; children?: number[] }>;
  samples: number[];
  timeDeltas: number[];
}

type Frame = CpuProfile['nodes'][number]['callFrame'];

const TREE_SITTER = /web-tree-sitter/;
const INDEXER = (files: string) => new RegExp(`knowledge/indexer/(${files})\\.ts`);

/** Phases, first match from the sampled frame towards the root wins. */
export const PHASE_RULES: ReadonlyArray<readonly [string, (frame: Frame) => boolean]> = [
  ['gc', (f) => f.functionName === '(garbage collector)'],
  ['idle', (f) => f.functionName === '(idle)'],
  ['parse (tree-sitter)', (f) => TREE_SITTER.test(f.url) && f.functionName === 'parse'],
  ['query (tree-sitter walk)', (f) => TREE_SITTER.test(f.url) && (f.functionName === 'captures' || f.functionName === 'matches')],
  ['grammar load', (f) => TREE_SITTER.test(f.url) && /^(load|init)$/.test(f.functionName)],
  ['link (imports, references)', (f) => INDEXER('link|pendingRefs|symbolTable|testLinks|extract/resolve\\w*').test(f.url)],
  ['extract (handlers)', (f) => /knowledge\/indexer\/extract\//.test(f.url)],
  ['chunk', (f) => INDEXER('chunks').test(f.url)],
  ['read + hash', (f) => INDEXER('read|generated').test(f.url)],
  ['write (SQLite, FTS)', (f) => INDEXER('store|bulkBuild|chunkIndexThread').test(f.url) || /better-sqlite3/.test(f.url)],
  ['history', (f) => INDEXER('gitHistory|git').test(f.url)],
  ['scan', (f) => INDEXER('scan').test(f.url)],
  ['worker transfer', (f) => /knowledge\/indexer\/parse\/|internal\/worker|messageport/.test(f.url)],
  ['start-up (module load)', (f) => f.functionName === '(program)' || /node_modules\/(tsx|esbuild)|internal\/modules/.test(f.url)],
];

/** Milliseconds per phase over the given profiles ('other' for samples no rule claims). */
export function phaseTotals(profiles: readonly CpuProfile[]): Map<string, number> {
  const totals = new Map<string, number>();
  for (const profile of profiles) {
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map<number, number>();
    for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
    const phaseOf = new Map<number, string>();
    const classify = (id: number): string => {
      let phase = phaseOf.get(id);
      if (phase !== undefined) return phase;
      phase = 'other';
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const frame = byId.get(at)!.callFrame;
        const rule = PHASE_RULES.find(([, test]) => test(frame));
        if (rule) {
          phase = rule[0];
          break;
        }
      }
      phaseOf.set(id, phase);
      return phase;
    };
    profile.samples.forEach((id, i) => {
      const phase = classify(id);
      totals.set(phase, (totals.get(phase) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
    });
  }
  return totals;
}

/** The table people read: busy phases by share (idle shown apart). */
export function formatPhases(totals: Map<string, number>): string {
  const busy = [...totals].filter(([phase]) => phase !== 'idle').reduce((sum, [, ms]) => sum + ms, 0);
  const rows = [...totals].filter(([phase]) => phase !== 'idle').sort((a, b) => b[1] - a[1]);
  const lines = rows.map(([phase, ms]) => `${phase.padEnd(28)} ${String(Math.round(ms)).padStart(7)} ms  ${((ms / busy) * 100).toFixed(1).padStart(5)}%`);
  return `${lines.join('\n')}\n${'busy (profiled)'.padEnd(28)} ${String(Math.round(busy)).padStart(7)} ms; idle ${Math.round(totals.get('idle') ?? 0)} ms\n`;
}

/** Entry point of scripts/index-profile.mjs: profile a full index of `repo` and print the table. */
export function main(repo: string): number {
  const tmp = mkdtempSync(join(tmpdir(), 'cra-index-profile-'));
  try {
    const cra = join(packageRoot(), 'bin', 'cra.js');
    const profiles = join(tmp, 'profiles');
    const run = spawnSync(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${profiles}`, cra, '--data-dir', join(tmp, 'data'), 'index', repo, '--json'], {
      env: { ...process.env, CRA_FROM_SOURCE: '1' },
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    if (run.status !== 0) throw new Error(`cra index exited ${run.status}: ${run.stderr.slice(-2000)}`);
    const files = readdirSync(profiles).filter((f) => f.endsWith('.cpuprofile'));
    const loaded = files.map((f) => JSON.parse(readFileSync(join(profiles, f), 'utf8')) as CpuProfile);
    process.stdout.write(`index-profile: ${repo}, ${files.length} thread profile(s), CRA_PARSE_WORKERS=${process.env.CRA_PARSE_WORKERS ?? '(default)'}\n`);
    process.stdout.write(formatPhases(phaseTotals(loaded)));
    // The engine thread alone (its profile is named …<pid>.0.<seq>.cpuprofile): what does not run in parallel.
    const engine = files.findIndex((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f));
    if (files.length > 1 && engine >= 0) process.stdout.write(`engine thread alone:\n${formatPhases(phaseTotals([loaded[engine]!]))}`);
    if (process.env.CRA_PROFILE_KEEP) process.stdout.write(`profiles kept in ${profiles}\n`);
    return 0;
  } finally {
    if (!process.env.CRA_PROFILE_KEEP) rmSync(tmp, { recursive: true, force: true });
  }
}
