/**
 * Chat benchmark (issue #14, item 13): time to sources (chat/ask → chat/sources) and time to the
 * first answer token (chat/ask → first chat/token) over questions made from the repository's own
 * function names, on a repository of 1,000 Python files copied into a git repository (the standard
 * library, topped up from the system's dist-packages: the standard library alone has fewer), with
 * the loopback model server answering at once (zero latency). Mode bm25 (no routing call: the
 * router's latency is the model's, not ours). `run()` is what `bin/bench.js` calls; run directly
 * (`npx tsx bench/chat.bench.ts`) it prints the figures as JSON. Through the engine as the product wires
 * it (`createCore`) and the host's client: `repos/add`, `search/query` and `chat/ask` requests, the
 * contract's events.
 *
 * Env: CRA_BENCH_STDLIB (folders of Python files, `:`-separated, taken in order; default: the
 * newest /usr/lib/python3.*, then /usr/lib/python3/dist-packages), CRA_BENCH_CHAT_FILES (default
 * 1000; fewer found is an error, so the figure always means that size), CRA_BENCH_CHAT_QUESTIONS
 * (default 60).
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { runGitSync } from '../src/core/platform/git';
import { OllamaTestServer } from '../src/core/testing/ollamaTestServer';
import { benchEngine } from './engine';
import { runIfMain } from './standalone';
import type { BenchContext, BenchFigure } from './types';

/** The folders the corpus is taken from, in order. */
function sourceDirs(): string[] {
  if (process.env.CRA_BENCH_STDLIB) return process.env.CRA_BENCH_STDLIB.split(':').filter(Boolean);
  const found = readdirSync('/usr/lib')
    .filter((n) => /^python3\.\d+$/.test(n))
    .sort((a, b) => Number(b.split('.')[1]) - Number(a.split('.')[1]))[0];
  if (!found) throw new Error('No /usr/lib/python3.* found; set CRA_BENCH_STDLIB to folders of Python files.');
  return [join('/usr/lib', found), '/usr/lib/python3/dist-packages'].filter((d) => existsSync(d));
}

/** Up to `count` .py files of the folders, in order (sorted walk, tests and site-packages skipped). */
function pythonFiles(roots: readonly string[], count: number): Array<{ root: string; file: string }> {
  const out: Array<{ root: string; file: string }> = [];
  for (const root of roots) walkPython(root, count, out);
  return out;
}

function walkPython(root: string, count: number, out: Array<{ root: string; file: string }>): void {
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (out.length >= count) return;
      const path = join(dir, name);
      const stat = statSync(path, { throwIfNoEntry: false });
      if (!stat) continue;
      if (stat.isDirectory()) {
        if (!/^(test|tests|site-packages|dist-packages|__pycache__|idlelib|lib2to3)$/.test(name)) walk(path);
      } else if (name.endsWith('.py') && stat.size < 200_000) out.push({ root, file: path });
    }
  };
  walk(root);
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const round = (n: number) => Math.round(n * 10) / 10;

/** Run the chat benchmark. */
export async function run(ctx: BenchContext): Promise<BenchFigure[]> {
  const fileCount = Number(process.env.CRA_BENCH_CHAT_FILES ?? 1000);
  const questionCount = Number(process.env.CRA_BENCH_CHAT_QUESTIONS ?? 60);
  const sources = sourceDirs();
  const repoDir = join(ctx.tmpDir, 'repo');
  const files = pythonFiles(sources, fileCount);
  if (files.length < fileCount) {
    throw new Error(`Only ${files.length} Python files in ${sources.join(', ')}; the chat figures are for ${fileCount}. Set CRA_BENCH_STDLIB to more folders (\`:\`-separated).`);
  }
  for (const { root, file } of files) {
    // Each folder under its own name, so files of two folders never collide.
    const target = join(repoDir, basename(root), relative(root, file));
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(file, target);
  }
  const git = (...args: string[]) => runGitSync(['-c', 'user.name=bench', '-c', 'user.email=bench@localhost', ...args], { cwd: repoDir });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'stdlib subset');
  ctx.log(`${files.length} files copied from ${sources.join(', ')}`);

  const server = await OllamaTestServer.start();
  server.install('qwen3:0.6b');
  server.script.respond = () => ({ text: '[Answer:] ok' });
  const dataDir = join(ctx.tmpDir, 'data');
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(join(dataDir, 'config.toml'), `[models]\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\nbase_url = "${server.url}"\n`);
  const engine = benchEngine(dataDir);
  try {
    const started = performance.now();
    const added = await engine.request('repos/add', { path: repoDir });
    await engine.wait(added.runId, 'index');
    ctx.log(`indexed in ${Math.round(performance.now() - started)} ms`);
    // Questions about the repository's own functions: names found by searching common words.
    const names: string[] = [];
    for (const query of ['parse', 'read', 'format', 'encode', 'get', 'open']) {
      const found = await engine.request('search/query', { repoId: added.repo.id, query, limit: 20, mode: 'keyword' });
      names.push(...found.results.flatMap((r) => r.symbols.map((s) => s.name)));
    }
    const unique = [...new Set(names)].filter((n) => n.length >= 4);
    if (unique.length === 0) throw new Error('no function names to ask about');
    const questions = Array.from({ length: questionCount }, (_, i) => `Where is ${unique[(i * 7) % unique.length]} defined and what does it do?`);
    const toSources: number[] = [];
    const toToken: number[] = [];
    const stepMs = new Map<string, number[]>();
    for (const [i, question] of questions.entries()) {
      const conversationId = `bench-${i}`;
      const t0 = performance.now();
      let sourcesAt = 0;
      let tokenAt = 0;
      const stops = [
        engine.on('chat/sources', (e) => {
          if (e.conversationId === conversationId && !sourcesAt) sourcesAt = performance.now();
        }),
        engine.on('chat/token', (e) => {
          if (e.conversationId === conversationId && !tokenAt) tokenAt = performance.now();
        }),
      ];
      let steps: Array<{ id: string; ms?: number }> = [];
      stops.push(
        engine.on('chat/done', (e) => {
          if (e.conversationId === conversationId) steps = e.message.trace?.steps ?? [];
        }),
      );
      const { runId } = await engine.request('chat/ask', { repoId: added.repo.id, question, conversationId, mode: 'bm25' });
      await engine.wait(runId, 'chat');
      stops.forEach((s) => s());
      for (const step of steps) stepMs.set(step.id, [...(stepMs.get(step.id) ?? []), step.ms ?? 0]);
      // The first question warms statement caches and the model connection: measured from the second on.
      if (i === 0) continue;
      toSources.push(sourcesAt - t0);
      toToken.push(tokenAt - t0);
    }
    // Where a turn's time goes, for people (median per step).
    ctx.log(`median ms per step: ${[...stepMs].map(([id, ms]) => `${id} ${percentile(ms, 50)}`).join(', ')}`);
    const figure = (name: string, value: number, note: string): BenchFigure => ({ name, value: round(value), unit: 'ms', better: 'lower', note });
    const on = `${files.length} files, ${toSources.length} questions, bm25, zero-latency loopback model; load average ${loadavg()[0]!.toFixed(1)} at the end`;
    return [
      figure('chat.timeToSources.p50', percentile(toSources, 50), on),
      figure('chat.timeToSources.p95', percentile(toSources, 95), on),
      figure('chat.timeToFirstToken.p50', percentile(toToken, 50), on),
      figure('chat.timeToFirstToken.p95', percentile(toToken, 95), on),
    ];
  } finally {
    await engine.dispose();
    await server.close();
  }
}

runIfMain(__filename, 'chat', run);

