/**
 * Search latency with and without the symbol-graph expansion and the function-level symbol listing
 * (issue #27), interleaved on one index so that machine load weighs on both alike:
 *
 *   CRA_FROM_SOURCE=1 npx tsx bench/expandLatency.ts --index <curated.sqlite> --report <cra eval report.json> [--rounds 3]
 *
 * The queries are the report's task texts; each round runs every query under each setting (order
 * alternating per query) after one warm-up pass. Prints p50/p95 ms per setting.
 */
import { readFileSync } from 'node:fs';
import type { EvalReport } from '../src/shared/contract/eval';
import { openDatabase } from '../src/core/platform/db/open';
import { overrideRanking, type RankingOverrides } from '../src/core/knowledge/search/rankingConstants';
import { searchRepository } from '../src/core/knowledge/search/search';

function arg(name: string, fallback?: string): string {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? process.argv[i + 1] : fallback;
  if (!value) throw new Error(`--${name} is required (see the comment at the top of bench/expandLatency.ts).`);
  return value;
}

const SETTINGS: Array<{ name: string; overrides: RankingOverrides }> = [
  { name: 'before (no expansion, 5 symbols from 3 chunks)', overrides: { EXPAND: { share: 0 }, UNITS: { symbols: 5, chunks: 3, enclosingShare: 0.5 } } },
  { name: 'after (shipped)', overrides: {} },
];

async function main(): Promise<void> {
  const db = openDatabase(arg('index'), { readOnly: true });
  const queries = (JSON.parse(readFileSync(arg('report'), 'utf8')) as EvalReport).tasks.map((t) => t.task);
  const rounds = Number(arg('rounds', '3'));
  const times = SETTINGS.map(() => [] as number[]);
  for (let round = -1; round < rounds; round++) {
    for (const [q, query] of queries.entries()) {
      const order = (q + round) % 2 === 0 ? [0, 1] : [1, 0];
      for (const s of order) {
        const restore = overrideRanking(SETTINGS[s]!.overrides);
        const start = performance.now();
        await searchRepository(db, query, { limit: 20, mode: 'keyword' });
        if (round >= 0) times[s]!.push(performance.now() - start);
        restore();
      }
    }
  }
  db.close();
  const pct = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;
  for (const [s, setting] of SETTINGS.entries()) console.log(`${setting.name}: p50 ${pct(times[s]!, 0.5).toFixed(1)} ms, p95 ${pct(times[s]!, 0.95).toFixed(1)} ms (${times[s]!.length} searches)`);
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
