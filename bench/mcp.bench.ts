/**
 * MCP tool-call latency, end to end through stdio: the MCP SDK's own client spawns `cra mcp --repo`
 * (bin/cra.js) on a git repository of ≥ 1000 files (a copy of the Python standard library, as the
 * CLI bench builds it, indexed once with `cra index`) and times search_code calls from the client's
 * side: JSON-RPC over the pipes, the freshness check of the working tree, the search and the
 * answer's text and structured content. The first call (which runs the incremental index that
 * makes the server know the repository) is timed apart. Target (issue #28): report p50/p95.
 *
 * Env: CRA_BENCH_MCP_FILES (files in the repository, default 1200), CRA_BENCH_MCP_CALLS (timed
 * search_code calls, default 40).
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../src/core/platform/paths';
import { cliEntry } from '../src/core/platform/runtime/bundleFreshness.js';
import { connectCraMcp } from '../src/hosts/mcp/testing/mcpClient';
import { copyCorpus, corpusRoots } from './cli.bench';
import { runIfMain } from './standalone';
import type { BenchContext, BenchFigure } from './types';

const QUERIES = ['json decoder', 'parse url query string', 'HTTPConnection request', 'thread pool executor', 'gzip compress', 'email header encoding', 'tempfile mkdtemp', 'argparse subparsers', 'socket timeout', 'decimal rounding'];

function percentiles(samples: number[]): { p50: number; p95: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => Math.round(s[Math.min(s.length - 1, Math.floor(q * s.length))]! * 10) / 10;
  return { p50: at(0.5), p95: at(0.95) };
}

/** Run the MCP benchmark: figures for `npm run bench` (bin/bench.js). */
export async function run(ctx: BenchContext): Promise<BenchFigure[]> {
  const repo = join(ctx.tmpDir, 'repo');
  const dataDir = join(ctx.tmpDir, 'data');
  const files = copyCorpus(corpusRoots(), repo, Number(process.env.CRA_BENCH_MCP_FILES ?? 1200));
  if (files < 1000) throw new Error(`Only ${files} files found under ${corpusRoots().join(', ')}; the MCP bench needs ≥ 1000.`);
  const env = { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.invalid', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.invalid' };
  for (const args of [['init', '-q'], ['add', '-A'], ['commit', '-q', '-m', 'corpus']]) execFileSync('git', args, { cwd: repo, stdio: 'ignore', env });
  ctx.log(`indexing ${files} files`);
  execFileSync(process.execPath, [join(packageRoot(), 'bin', 'cra.js'), '--data-dir', dataDir, 'index', repo, '--json'], { stdio: 'ignore' });

  const started = performance.now();
  const session = await connectCraMcp(dataDir, ['--repo', repo]);
  const connectMs = performance.now() - started;
  try {
    const call = async (query: string) => {
      const t = performance.now();
      const r = await session.call('search_code', { query, limit: 10 });
      if (r.isError) throw new Error(`search_code failed: ${JSON.stringify(r.content)}`);
      return performance.now() - t;
    };
    const firstMs = await call(QUERIES[0]!);
    const calls = Number(process.env.CRA_BENCH_MCP_CALLS ?? 40);
    const samples: number[] = [];
    for (let i = 0; i < calls; i++) samples.push(await call(QUERIES[i % QUERIES.length]!));
    const p = percentiles(samples);
    const how = `${calls} search_code calls (limit 10) over stdio from the SDK client, ${files}-file git repository; ${cliEntry().fromSource ? 'server from the sources (tsx)' : 'server from the bundle out/cli'}; load average ${loadavg()[0]!.toFixed(1)} at the end`;
    const ms = (name: string, value: number, note?: string): BenchFigure => ({ name, value: Math.round(value * 10) / 10, unit: 'ms', better: 'lower', ...(note ? { note } : {}) });
    return [
      ms('mcp.search.p50', p.p50, how),
      ms('mcp.search.p95', p.p95),
      ms('mcp.connect', connectMs, 'spawn cra mcp and initialize'),
      ms('mcp.search.first', firstMs, 'the first call: includes the incremental index that tells the server the repository is current'),
    ];
  } finally {
    await session.close();
  }
}

runIfMain(__filename, 'mcp', run);
