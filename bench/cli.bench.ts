/**
 * CLI start-up benchmark: what a person waits for at the prompt. In the same run, interleaved so
 * that a change of load on a shared machine hits each alike: `node -e 0` (Node's own start),
 * `cra --version` (start-up alone, ratio to Node's), `cra search` on an indexed repository of
 * ≥ 1000 files (wall time of the whole process, and the search's own `tookMs`), `cra chat --json`
 * until its sources line (keyword mode, the loopback model server answering at once), and `cra
 * serve` until its URL line, then its first `search/query` over HTTP. The repository is a git
 * repository made of a copy of the Python standard library (topped up from dist-packages), indexed
 * once with `cra index` in setup. Targets (issue #25): `--version` ≤ 1.5× Node's start, `search`
 * p50 ≤ 2.5× it (issue #11: ≤ 250 ms), chat to its sources ≤ 3× it; serve is measured the same way.
 *
 * Env: CRA_BENCH_CLI_FILES (files in the repository, default 1200), CRA_BENCH_CLI_RUNS (runs per
 * figure, default 15).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, relative } from 'node:path';
import { packageRoot } from '../src/core/platform/paths';
import { cliEntry } from '../src/core/platform/runtime/bundleFreshness.js';
import { OllamaTestServer } from '../src/core/testing/ollamaTestServer';
import { serveOnce, timeToSources } from './processTiming';
import { runIfMain } from './standalone';
import type { BenchContext, BenchFigure } from './types';

/** Queries a person might type into `cra search` over the standard library. */
const QUERIES = [
  'json decoder',
  'parse url query string',
  'HTTPConnection request',
  'thread pool executor',
  'gzip compress',
  'email header encoding',
  'tempfile mkdtemp',
  'argparse subparsers',
  'socket timeout',
  'decimal rounding',
  'unittest mock patch',
  'csv dialect sniffer',
];

/** Where the corpus comes from: the newest /usr/lib/python3.x, then dist-packages. */
export function corpusRoots(): string[] {
  const versions = readdirSync('/usr/lib')
    .filter((d) => /^python3\.\d+$/.test(d))
    .sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]));
  const roots = versions.length > 0 ? [join('/usr/lib', versions[versions.length - 1]!)] : [];
  if (existsSync('/usr/lib/python3/dist-packages')) roots.push('/usr/lib/python3/dist-packages');
  return roots;
}

/** Copy up to `max` regular files (no __pycache__) from the roots into `dest`; returns how many. */
export function copyCorpus(roots: string[], dest: string, max: number): number {
  let copied = 0;
  const walk = (root: string, dir: string, prefix: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
    } catch {
      return;
    }
    for (const entry of entries) {
      if (copied >= max) return;
      const from = join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== '__pycache__') walk(root, from, prefix);
      else if (entry.isFile() && statSync(from).size < 1_000_000) {
        const to = join(dest, prefix, relative(root, from));
        mkdirSync(join(to, '..'), { recursive: true });
        copyFileSync(from, to);
        copied++;
      }
    }
  };
  roots.forEach((root, i) => walk(root, root, i === 0 ? 'stdlib' : `extra${i}`));
  return copied;
}

function percentiles(samples: number[]): { p50: number; p95: number; n: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return { p50: Math.round(at(0.5) * 10) / 10, p95: Math.round(at(0.95) * 10) / 10, n: s.length };
}

/** Wall time (ms) of one process, which must exit 0. */
function timed(args: string[]): { ms: number; stdout: string } {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return { ms, stdout: result.stdout };
}

/** Run the CLI benchmark: figures for `npm run bench` (bin/bench.js). */
export async function run(ctx: BenchContext): Promise<BenchFigure[]> {
  const cra = join(packageRoot(), 'bin', 'cra.js');
  const entry = cliEntry();
  if (entry.fromSource) ctx.log('out/cli is missing or older than src/: measuring the tsx fallback (run `npm run build` first)');
  const repo = join(ctx.tmpDir, 'repo');
  const dataDir = join(ctx.tmpDir, 'data');
  const files = copyCorpus(corpusRoots(), repo, Number(process.env.CRA_BENCH_CLI_FILES ?? 1200));
  if (files < 1000) throw new Error(`Only ${files} files found under ${corpusRoots().join(', ')}; the CLI bench needs ≥ 1000.`);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore', env: { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.invalid', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.invalid' } });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'corpus');
  ctx.log(`indexing ${files} files`);
  timed([cra, '--data-dir', dataDir, 'index', repo, '--json']);

  const runs = Number(process.env.CRA_BENCH_CLI_RUNS ?? 15);
  const node: number[] = [];
  const version: number[] = [];
  const searchWall: number[] = [];
  const searchOwn: number[] = [];
  const chat: number[] = [];
  const serveReady: number[] = [];
  const serveSearch: number[] = [];
  // Chat's model calls go to the loopback server (no routing call in keyword mode; a question read as
  // another language is translated first, as a person's would be).
  const server = await OllamaTestServer.start();
  server.install('qwen3:0.6b');
  writeFileSync(join(dataDir, 'config.toml'), `[models]\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\nbase_url = "${server.url}"\n`);
  // serve needs a built renderer to start; where the app is not built, a one-page stand-in (the figures are the engine's).
  let rendererDir = join(packageRoot(), 'out', 'renderer');
  if (!existsSync(join(rendererDir, 'index.html'))) {
    rendererDir = join(ctx.tmpDir, 'renderer');
    mkdirSync(rendererDir, { recursive: true });
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Clean Room</title>\n');
  }
  const chatArgs = (question: string) => [cra, '--data-dir', dataDir, 'chat', question, '--repo', repo, '--mode', 'keyword', '--json'];
  try {
    timed([cra, '--version']); // the first start reads files from disk; later ones from the page cache
    await timeToSources(chatArgs('How is a JSON document decoded?'));
    const { repoId } = await serveOnce(cra, dataDir, rendererDir, { path: repo }, 'json decoder');
    for (let i = 0; i < runs; i++) {
      node.push(timed(['-e', '0']).ms);
      version.push(timed([cra, '--version']).ms);
      const query = QUERIES[i % QUERIES.length]!;
      const search = timed([cra, '--data-dir', dataDir, 'search', query, '--repo', repo, '--json']);
      searchWall.push(search.ms);
      searchOwn.push((JSON.parse(search.stdout) as { tookMs: number }).tookMs);
      chat.push(await timeToSources(chatArgs(`Where is ${query} handled?`)));
      const served = await serveOnce(cra, dataDir, rendererDir, { path: repo, id: repoId }, query);
      serveReady.push(served.readyMs);
      serveSearch.push(served.firstSearchMs);
    }
  } finally {
    await server.close();
  }
  const n = percentiles(node);
  const v = percentiles(version);
  const s = percentiles(searchWall);
  const own = percentiles(searchOwn);
  const c = percentiles(chat);
  const ready = percentiles(serveReady);
  const first = percentiles(serveSearch);
  const how = `${runs} runs each, interleaved; ${entry.fromSource ? 'from the sources (tsx)' : 'from the bundle out/cli'}; load average ${loadavg()[0]!.toFixed(1)} at the end`;
  const ms = (name: string, value: number, note?: string): BenchFigure => ({ name, value, unit: 'ms', better: 'lower', ...(note ? { note } : {}) });
  const ratio = (name: string, value: number, note: string): BenchFigure => ({ name, value: Math.round((value / n.p50) * 100) / 100, unit: 'ratio', better: 'lower', note });
  return [
    ms('cli.node.p50', n.p50, `node -e 0: Node's own start; ${how}`),
    ms('cli.version.p50', v.p50),
    ratio('cli.version.ratio', v.p50, 'cra --version p50 / node -e 0 p50; target ≤ 1.5 (issue #25)'),
    ms('cli.search.p50', s.p50, `cra search --json, wall time of the process, ${files}-file repository; target ≤ 250 ms`),
    ratio('cli.search.ratio', s.p50, 'cra search p50 / node -e 0 p50; target ≤ 2.5 (issue #25)'),
    ms('cli.search.p95', s.p95),
    ms('cli.search.own.p50', own.p50, "the search's own tookMs inside that process"),
    ms('cli.chat.toSources.p50', c.p50, 'cra chat --mode keyword --json: spawn to its sources line, loopback model server'),
    ratio('cli.chat.ratio', c.p50, 'cra chat to its sources p50 / node -e 0 p50; target ≤ 3 (issue #25)'),
    ms('cli.chat.toSources.p95', c.p95),
    ms('cli.serve.ready.p50', ready.p50, 'cra serve --port 0: spawn to its "serving on <url>" line (engine started, listening)'),
    ratio('cli.serve.ready.ratio', ready.p50, 'cra serve to its URL p50 / node -e 0 p50 (issue #25: measured like the CLI)'),
    ms('cli.serve.firstSearch.p50', first.p50, 'the first search/query over HTTP after the URL line: round trip, opening the index included'),
  ];
}

runIfMain(__filename, 'cli', run);
