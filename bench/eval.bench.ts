import { join } from 'node:path';
import { buildFixtureRepo } from '../src/core/testing/fixtureRepo';
import { benchEngine } from './engine';
import type { BenchContext, BenchFigure } from './types';

/**
 * Retrieval quality and evaluation cost. Runs `cra eval` on the fixture repository the tests use
 * (always available), and, when CRA_BENCH_EVAL_REPO names a git repository, on its 20 most recent
 * qualifying commits too (figures prefixed `repo.`). Through the engine (`createCore`): the
 * `eval/start` request, its run, and the stored report read back with `eval/get`.
 */
export async function run(ctx: BenchContext): Promise<BenchFigure[]> {
  const figures: BenchFigure[] = [];
  const fixture = buildFixtureRepo(join(ctx.tmpDir, 'fixture'));
  figures.push(...(await evaluate(ctx, fixture, 'fixture', 50)));
  const extra = process.env.CRA_BENCH_EVAL_REPO;
  if (extra) figures.push(...(await evaluate(ctx, extra, 'repo', 20)));
  return figures;
}

async function evaluate(ctx: BenchContext, repoPath: string, prefix: string, commits: number): Promise<BenchFigure[]> {
  ctx.log(`evaluating ${repoPath}`);
  const engine = benchEngine(join(ctx.tmpDir, `data-${prefix}`));
  try {
    const { runId } = await engine.request('eval/start', { repoPath, commits });
    const { reportId } = await engine.wait(runId, 'eval');
    const report = await engine.request('eval/get', { id: reportId });
    const figures: BenchFigure[] = [];
    for (const method of report.methods) {
      const s = report.summary[method]!;
      for (const k of report.ks) figures.push({ name: `${prefix}.${method}.recall@${k}`, value: s.recallAt[k]!, unit: 'fraction', better: 'higher' });
      figures.push({ name: `${prefix}.${method}.mrr`, value: s.mrr, unit: 'fraction', better: 'higher' });
      figures.push({ name: `${prefix}.${method}.msPerTask`, value: report.timing.methodMsMean[method] ?? 0, unit: 'ms', better: 'lower' });
    }
    figures.push({ name: `${prefix}.indexMsPerTask`, value: report.timing.indexMsMean, unit: 'ms', better: 'lower', note: 'incremental index of each task parent, first task full' });
    figures.push({ name: `${prefix}.tasks`, value: report.tasks.length, unit: 'tasks', better: 'higher' });
    return figures;
  } finally {
    await engine.dispose();
  }
}
