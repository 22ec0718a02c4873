/**
 * Search benchmark: keyword latency p50/p95 over ≥200 queries derived (fixed seed) from real
 * identifiers and docstring phrases of the Python standard library, embedding throughput of the
 * engine's embedder, and hybrid / semantic latency. Everything measured goes through the engine as
 * the product wires it (`createCore`, the host's client): the corpus is added with `repos/add`,
 * queries are `search/query` requests, vectors come from a `search/embed` run (the engine's one
 * embedder, a worker thread), stopped once CRA_BENCH_EMBED_CHUNKS chunks have vectors. Only the
 * query set is read from the index file directly. `run()` is what `bin/bench.js` calls; run directly
 * (`npx tsx bench/search.bench.ts`) it prints the figures as JSON.
 *
 * Env: CRA_BENCH_STDLIB (default: the newest /usr/lib/python3.*), CRA_BENCH_EMBED_CHUNKS (default
 * 300), CRA_BENCH_DEVSET (a folder of `node scripts/devset.mjs` clones: keyword latency is also
 * measured on the development repository nearest 1,000 files and on the largest, with their own
 * commit subjects among the queries).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Db } from '../src/core/platform/db/open';
import { runGitSync } from '../src/core/platform/git';
import { repoPaths } from '../src/core/platform/layout';
import type { EngineClient } from '../src/core/app/contract/client';
import type { SearchMode } from '../src/shared/contract/search';
import { benchEngine } from './engine';
import { runIfMain } from './standalone';
import type { BenchContext, BenchFigure } from './types';

/** A small seeded PRNG (mulberry32), so the query set is the same on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(items: readonly T[], n: number, random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, n);
}

/** Queries from the corpus: symbol names, docstring openings, and split-identifier phrases. */
export function benchQueries(db: Db, seed = 42): string[] {
  const random = prng(seed);
  const names = db.prepare("select distinct name from symbols where kind in ('function','method','class') and length(name) >= 4 order by name").pluck().all() as string[];
  const docs = db.prepare("select docstring from symbols where docstring is not null and length(docstring) >= 20 order by id").pluck().all() as string[];
  const phrases = pick(docs, 80, random)
    .map((d) => d.replace(/\s+/g, ' ').trim().split(' ').slice(0, 3 + Math.floor(random() * 4)).join(' '))
    .filter((p) => p.length > 0);
  const splitNames = pick(names.filter((n) => n.includes('_') || /[a-z][A-Z]/.test(n)), 40, random).map((n) =>
    n.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/_+/g, ' ').trim().toLowerCase(),
  );
  return [...pick(names, 100, random), ...phrases, ...splitNames];
}

function percentiles(samples: number[]): { p50: number; p95: number; p99: number; mean: number; max: number; n: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  const r = (x: number) => Math.round(x * 100) / 100;
  return { p50: r(at(0.5)), p95: r(at(0.95)), p99: r(at(0.99)), mean: r(s.reduce((a, b) => a + b, 0) / s.length), max: r(s[s.length - 1]!), n: s.length };
}

/**
 * Wall time and CPU time (user + system of this process) per `search/query` request. On a shared
 * machine the CPU time is the better estimate of what a query costs on an idle one; both are
 * reported. CPU includes the engine's embedding worker thread for hybrid and semantic queries.
 */
async function latency(engine: EngineClient, repoId: string, queries: readonly string[], mode: SearchMode) {
  for (const q of queries.slice(0, 10)) await engine.request('search/query', { repoId, query: q, mode, limit: 20 });
  const wall: number[] = [];
  const cpu: number[] = [];
  for (const q of queries) {
    const t = performance.now();
    const c = process.cpuUsage();
    await engine.request('search/query', { repoId, query: q, mode, limit: 20 });
    const used = process.cpuUsage(c);
    wall.push(performance.now() - t);
    cpu.push((used.user + used.system) / 1000);
  }
  return { ...percentiles(wall), cpu: percentiles(cpu) };
}

/** Add (index) a folder through the engine: its repository id, index file and index summary. */
async function addRepository(engine: EngineClient, dataDir: string, root: string) {
  const added = await engine.request('repos/add', { path: root });
  const indexed = await engine.wait(added.runId, 'index');
  return { repoId: added.repo.id, file: repoPaths(dataDir, added.repo.id).curated, indexed };
}

/** The query set, read from the index file (read-only; the engine keeps its own connections). */
function queriesOf(file: string, extra: readonly string[] = []): { queries: string[]; chunks: number } {
  const db = openDatabase(file, { readOnly: true });
  try {
    return { queries: [...benchQueries(db), ...extra], chunks: db.prepare('select count(*) from chunks').pluck().get() as number };
  } finally {
    db.close();
  }
}

/**
 * A `search/embed` run, stopped once `maxChunks` chunks have vectors (its finished batches are
 * kept): chunks per second from its first progress event (the pending list made) to the last.
 */
async function embedSome(engine: EngineClient, repoId: string, maxChunks: number): Promise<{ embedded: number; ms: number }> {
  const { runId } = await engine.request('search/embed', { repoId });
  let startedAt = 0;
  let lastAt = 0;
  let embedded = 0;
  const stop = engine.on('run/progress', (p) => {
    if (p.runId !== runId || p.phase !== 'embeddings') return;
    if (p.done === 0) startedAt = performance.now();
    else {
      lastAt = performance.now();
      embedded = p.done;
      if (p.done >= maxChunks) engine.cancel(runId);
    }
  });
  try {
    await engine.wait(runId, 'embed').catch((error: unknown) => {
      if ((error as { code?: string }).code !== 'CANCELLED') throw error;
    });
  } finally {
    stop();
  }
  return { embedded, ms: lastAt - startedAt };
}

export function stdlibRoot(): string {
  if (process.env.CRA_BENCH_STDLIB) return process.env.CRA_BENCH_STDLIB;
  const versions = readdirSync('/usr/lib').filter((d) => /^python3\.\d+$/.test(d)).sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]));
  if (versions.length === 0) throw new Error('No /usr/lib/python3.* found; set CRA_BENCH_STDLIB to a Python source tree.');
  return join('/usr/lib', versions[versions.length - 1]!);
}

/** A development repository of bench/devset.json cloned under CRA_BENCH_DEVSET, with its tracked-file count. */
interface DevRepo {
  name: string;
  root: string;
  files: number;
}

/** The cloned development repositories nearest 1,000 files and the largest (one when they coincide). */
export function pickDevRepos(repos: readonly DevRepo[]): Array<DevRepo & { role: '1k' | 'largest' }> {
  if (repos.length === 0) return [];
  const nearest = [...repos].sort((a, b) => Math.abs(a.files - 1000) - Math.abs(b.files - 1000))[0]!;
  const largest = [...repos].sort((a, b) => b.files - a.files)[0]!;
  return largest === nearest ? [{ ...largest, role: 'largest' }] : [{ ...nearest, role: '1k' }, { ...largest, role: 'largest' }];
}

/** Keyword latency on development repositories (CRA_BENCH_DEVSET); none when it is not set. */
async function devsetFigures(ctx: BenchContext): Promise<BenchFigure[]> {
  const folder = process.env.CRA_BENCH_DEVSET;
  if (!folder) {
    ctx.log('devset: CRA_BENCH_DEVSET not set (a folder of `node scripts/devset.mjs` clones); skipped');
    return [];
  }
  const listed = (JSON.parse(readFileSync(join(__dirname, 'devset.json'), 'utf8')) as { repositories: Array<{ name: string }> }).repositories;
  const repos = listed
    .map((r) => ({ name: r.name, root: join(folder, r.name) }))
    .filter((r) => existsSync(join(r.root, '.git')))
    .map((r) => ({ ...r, files: runGitSync(['ls-files'], { cwd: r.root, maxBuffer: 256 * 1024 * 1024 }).split('\n').filter(Boolean).length }));
  if (repos.length === 0) throw new Error(`CRA_BENCH_DEVSET=${folder} holds none of bench/devset.json's repositories; clone them with node scripts/devset.mjs ${folder}`);
  const figures: BenchFigure[] = [];
  const dataDir = join(ctx.tmpDir, 'data-devset');
  const engine = benchEngine(dataDir);
  try {
    for (const repo of pickDevRepos(repos)) {
      ctx.log(`devset: indexing ${repo.root} (${repo.files} files)`);
      const { repoId, file, indexed } = await addRepository(engine, dataDir, repo.root);
      // Task-like queries too: the repository's own commit subjects, as `cra eval` uses its messages.
      const subjects = runGitSync(['log', '--no-merges', '-n', '100', '--format=%s'], { cwd: repo.root }).split('\n').filter(Boolean);
      const keyword = await latency(engine, repoId, queriesOf(file, subjects).queries, 'keyword');
      const target = repo.role === '1k' ? 30 : 100;
      const label = `search.devset.${repo.role}`;
      figures.push(
        { name: `${label}.keyword.p50`, value: keyword.p50, unit: 'ms', better: 'lower', note: `${repo.name}: ${repo.files} files, ${indexed.parsed} parsed; ${keyword.n} queries; load average ${loadavg()[0]!.toFixed(1)}` },
        { name: `${label}.keyword.p95`, value: keyword.p95, unit: 'ms', better: 'lower', note: `target ≤ ${target} ms` },
        { name: `${label}.keyword.cpu.p95`, value: keyword.cpu.p95, unit: 'ms', better: 'lower', note: 'CPU time of the process per query' },
      );
    }
  } finally {
    await engine.dispose();
  }
  return figures;
}

/** Run the search benchmark: figures for `npm run bench` (bin/bench.js). */
export async function run(ctx: BenchContext): Promise<BenchFigure[]> {
  const corpus = stdlibRoot();
  const dataDir = join(ctx.tmpDir, 'data');
  const engine = benchEngine(dataDir);
  try {
    ctx.log(`indexing ${corpus}`);
    const { repoId, file } = await addRepository(engine, dataDir, corpus);
    const { queries, chunks } = queriesOf(file);
    ctx.log(`${queries.length} keyword queries over ${chunks} chunks`);
    const keyword = await latency(engine, repoId, queries, 'keyword');
    // The embedding worker starts and loads its model on first use: a query vector, before the timing.
    await engine.request('search/query', { repoId, query: 'warm up the model', mode: 'semantic', limit: 1 });
    const maxChunks = Number(process.env.CRA_BENCH_EMBED_CHUNKS ?? 300);
    ctx.log(`embedding ${maxChunks} chunks`);
    const embedded = await embedSome(engine, repoId, maxChunks);
    const { defaultEmbedderId } = await engine.request('search/status', { repoId });
    const sample = queries.filter((_, i) => i % 4 === 0);
    const hybrid = await latency(engine, repoId, sample, 'hybrid');
    const semantic = await latency(engine, repoId, sample, 'semantic');
    const load = `load average ${loadavg()[0]!.toFixed(1)} at the end; ${corpus}, ${chunks} chunks`;
    const ms = (name: string, value: number, note?: string): BenchFigure => ({ name, value, unit: 'ms', better: 'lower', ...(note ? { note } : {}) });
    const partial = `${embedded.embedded} of ${chunks} chunks have vectors; includes embedding the query in the engine's worker`;
    return [
      ...(await devsetFigures(ctx)),
      ms('search.keyword.p50', keyword.p50, `${keyword.n} queries; ${load}`),
      ms('search.keyword.p95', keyword.p95, 'target < 30 ms'),
      ms('search.keyword.cpu.p50', keyword.cpu.p50, 'CPU time of the process per query (less affected by other load)'),
      ms('search.keyword.cpu.p95', keyword.cpu.p95),
      { name: 'search.embed.chunksPerSecond', value: Math.round((embedded.embedded / (embedded.ms / 1000)) * 10) / 10, unit: 'chunks/s', better: 'higher', note: `${defaultEmbedderId}, ${embedded.embedded} chunks` },
      ms('search.hybrid.p50', hybrid.p50, `${hybrid.n} queries; ${partial}`),
      ms('search.hybrid.p95', hybrid.p95),
      ms('search.semantic.p50', semantic.p50, partial),
      ms('search.semantic.p95', semantic.p95),
    ];
  } finally {
    await engine.dispose();
  }
}

runIfMain(__filename, 'search', run);
