/**
 * Embedding benchmark: what background embedding costs with the embedded model (USE lite) in its
 * worker thread, on Python standard library chunks. Figures: chunks/s and CPU ms per chunk of a real
 * `embedRepository` run (CPU = the whole process, worker included), the engine thread's longest
 * stall during it, the same CPU figure for the previous text recipe (path + names + the start of
 * the body, 256 characters), and query-vector latency through the worker, idle and during a run.
 * Run directly (`npx tsx bench/embed.bench.ts`) it prints the figures as JSON.
 *
 * It measures the embedder alone, on purpose: the worker against the in-thread fallback, two text
 * recipes, and query latency while a run holds the worker are not things a request can ask for.
 * The worker embedder is made by the same factory `createCore` uses for its one embedder
 * (`createBackgroundEmbedder`); a `Core` does not hand its embedder out. The figures of the
 * engine's own wiring (a `search/embed` run, queries through `search/query`) are search.bench.ts's.
 *
 * Env: CRA_BENCH_STDLIB (default: the newest /usr/lib/python3.*), CRA_BENCH_SEARCH_DB (reuse an
 * already indexed curated.sqlite; it is copied, never modified), CRA_BENCH_EMBED_CHUNKS (default 200).
 */
import { copyFileSync, existsSync, readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { openDatabase, type Db } from '../src/core/platform/db/open';
import { indexRepository } from '../src/core/knowledge/indexer/indexer';
import { createDefaultEmbedder, wordsForEmbedding, type Embedder } from '../src/core/knowledge/search/embedder';
import { embedRepository } from '../src/core/knowledge/search/embedRun';
import { chunkEmbeddingText, EMBED_CHUNKS_PAGE_SQL, type ChunkTextFields } from '../src/core/knowledge/search/embedText';
import { indexerDeps } from '../src/core/testing/searchRepo';
import { createBackgroundEmbedder } from '../src/core/knowledge/search/workerEmbedder';
import { runIfMain } from './standalone';
import type { BenchContext, BenchFigure } from './types';

function stdlibRoot(): string {
  if (process.env.CRA_BENCH_STDLIB) return process.env.CRA_BENCH_STDLIB;
  const versions = readdirSync('/usr/lib').filter((d) => /^python3\.\d+$/.test(d)).sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]));
  if (versions.length === 0) throw new Error('No /usr/lib/python3.* found; set CRA_BENCH_STDLIB to a Python source tree.');
  return join('/usr/lib', versions[versions.length - 1]!);
}

/** The text recipe before the compact one (kept here only to measure the difference). */
function wholeBodyText(chunk: ChunkTextFields): string {
  return wordsForEmbedding(`${chunk.path} ${chunk.symbol_names} ${chunk.text.slice(0, 512)}`).slice(0, 256);
}

/** Every k-th chunk, so the sample spreads over the whole corpus. */
function sampleChunks(db: Db, n: number): ChunkTextFields[] {
  const all = db.prepare(EMBED_CHUNKS_PAGE_SQL).all(0, 1e9) as ChunkTextFields[];
  const step = Math.max(1, Math.floor(all.length / n));
  return all.filter((_, i) => i % step === 0).slice(0, n);
}

/** CPU ms (whole process) and wall ms per text for embedding `texts`. */
async function cost(embedder: Embedder, texts: string[]): Promise<{ cpuMs: number; wallMs: number; chars: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await embedder.embed(texts);
  const used = process.cpuUsage(cpu);
  const r = (x: number) => Math.round(x * 10) / 10;
  return { cpuMs: r((used.user + used.system) / 1000 / texts.length), wallMs: r((performance.now() - started) / texts.length), chars: Math.round(texts.reduce((a, t) => a + t.length, 0) / texts.length) };
}

async function queryLatency(embedder: Embedder, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await embedder.embed([`parse the configuration file number ${i}`]);
    out.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 37));
  }
  return out.sort((a, b) => a - b);
}

const at = (sorted: number[], q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! * 10) / 10;

/** Run the embedding benchmark: figures for `npm run bench` (bin/bench.js). */
export async function run(ctx: BenchContext): Promise<BenchFigure[]> {
  const file = join(ctx.tmpDir, 'curated.sqlite');
  const reuse = process.env.CRA_BENCH_SEARCH_DB;
  if (reuse && existsSync(reuse)) copyFileSync(reuse, file);
  else {
    ctx.log(`indexing ${stdlibRoot()}`);
    await indexRepository({ root: stdlibRoot(), curatedFile: file, ...indexerDeps() });
  }
  const n = Number(process.env.CRA_BENCH_EMBED_CHUNKS ?? 200);
  const embedder = createBackgroundEmbedder();
  const db = openDatabase(file, { withVectors: true });
  try {
    await embedder.embed(['warm up the model']);
    if (embedder.where !== 'worker') throw new Error(`the embedding worker did not start (${embedder.where})`);
    const sample = sampleChunks(db, n);
    ctx.log(`text recipes over ${sample.length} chunks`);
    const compact = await cost(embedder, sample.map(chunkEmbeddingText));
    const previous = await cost(embedder, sample.map(wholeBodyText));
    const idle = await queryLatency(embedder, 20);

    ctx.log(`embedRepository over ${n} chunks in the worker`);
    const stalls = monitorEventLoopDelay({ resolution: 10 });
    stalls.enable();
    const cpu = process.cpuUsage();
    const running = embedRepository(db, embedder, { maxChunks: n });
    const busy = await queryLatency(embedder, 20);
    const summary = await running;
    const used = process.cpuUsage(cpu);
    stalls.disable();
    const chunksPerSecond = Math.round((summary.embedded / (summary.durationMs / 1000)) * 10) / 10;
    const cpuPerChunk = Math.round(((used.user + used.system) / 1000 / summary.embedded) * 10) / 10;

    ctx.log(`embedRepository over ${n / 2} more chunks on the engine thread (the fallback), for comparison`);
    const inThread = createDefaultEmbedder();
    await inThread.embed(['warm up the model']);
    const threadStalls = monitorEventLoopDelay({ resolution: 10 });
    threadStalls.enable();
    await embedRepository(db, inThread, { maxChunks: n / 2 });
    threadStalls.disable();
    const corpus = `${summary.chunks} chunks; load average ${loadavg()[0]!.toFixed(1)} at the end (2 shared cores)`;
    return [
      { name: 'embed.run.chunksPerSecond', value: chunksPerSecond, unit: 'chunks/s', better: 'higher', note: `${summary.embedded} chunks, worker thread; ${corpus}` },
      { name: 'embed.run.cpuMsPerChunk', value: cpuPerChunk, unit: 'ms', better: 'lower', note: 'process CPU (worker + engine thread) per chunk' },
      { name: 'embed.run.mainThreadMaxStallMs', value: Math.round(stalls.max / 1e5) / 10, unit: 'ms', better: 'lower', note: 'longest event-loop delay of the engine thread during the run' },
      { name: 'embed.inThread.mainThreadMaxStallMs', value: Math.round(threadStalls.max / 1e5) / 10, unit: 'ms', better: 'lower', note: 'the same without the worker (fallback): the engine thread is blocked per batch' },
      { name: 'embed.recipe.compact.cpuMsPerChunk', value: compact.cpuMs, unit: 'ms', better: 'lower', note: `${compact.chars} chars on average; ${compact.wallMs} ms wall per chunk` },
      { name: 'embed.recipe.wholeBody.cpuMsPerChunk', value: previous.cpuMs, unit: 'ms', better: 'lower', note: `previous recipe, ${previous.chars} chars on average; ${previous.wallMs} ms wall per chunk` },
      { name: 'embed.query.idle.p50', value: at(idle, 0.5), unit: 'ms', better: 'lower', note: 'one query text through the worker, nothing else running' },
      { name: 'embed.query.duringRun.p50', value: at(busy, 0.5), unit: 'ms', better: 'lower', note: 'one query text while a run keeps the worker busy (waits for the batch in flight)' },
      { name: 'embed.query.duringRun.p95', value: at(busy, 0.95), unit: 'ms', better: 'lower' },
    ];
  } finally {
    db.close();
    await embedder.dispose();
  }
}

runIfMain(__filename, 'embed', run);
