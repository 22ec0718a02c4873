import { join } from 'node:path';
import { buildShopRepo } from '../src/core/testing/bootstrapFixture';
import { benchEngine } from './engine';
import type { BenchContext, BenchFigure } from './types';

/**
 * `cra bootstrap` throughput and the label balance it produces: on the shop fixture the tests use
 * (always available), and, when CRA_BENCH_BOOTSTRAP_REPO names a git repository, on its 30 most
 * recent qualifying commits too (figures prefixed `repo.`). Through the engine (`createCore`): a
 * `training/bootstrap` request and its run's summary.
 */
export async function run(ctx: BenchContext): Promise<BenchFigure[]> {
  const figures = await measure(ctx, buildShopRepo(join(ctx.tmpDir, 'shop')), 'fixture', 50);
  const extra = process.env.CRA_BENCH_BOOTSTRAP_REPO;
  if (extra) figures.push(...(await measure(ctx, extra, 'repo', 30)));
  return figures;
}

async function measure(ctx: BenchContext, repoPath: string, prefix: string, commits: number): Promise<BenchFigure[]> {
  ctx.log(`bootstrapping ${repoPath}`);
  const s = await bootstrap(join(ctx.tmpDir, `data-${prefix}`), repoPath, commits);
  const share = (c: { yes: number; no: number }) => (c.yes + c.no ? c.yes / (c.yes + c.no) : 0);
  return [
    { name: `${prefix}.commitsPerSecond`, value: s.added / Math.max(0.001, s.durationMs / 1000), unit: 'commits/s', better: 'higher', note: 'mining, one worktree moved through the parents, incremental index, pairs' },
    { name: `${prefix}.commits`, value: s.added, unit: 'commits', better: 'higher' },
    { name: `${prefix}.scope.yesShare`, value: share(s.counts.scope), unit: 'fraction', better: 'higher', note: `${s.counts.scope.yes} yes / ${s.counts.scope.no} no` },
    { name: `${prefix}.precision_pass1.yesShare`, value: share(s.counts.precision_pass1), unit: 'fraction', better: 'higher', note: `${s.counts.precision_pass1.yes} yes / ${s.counts.precision_pass1.no} no` },
  ];
}

/** One `training/bootstrap` run on an engine of its own: the run's summary. */
async function bootstrap(dataDir: string, repoPath: string, commits: number) {
  const engine = benchEngine(dataDir);
  try {
    const { runId } = await engine.request('training/bootstrap', { repoPath, commits });
    return await engine.wait(runId, 'bootstrap');
  } finally {
    await engine.dispose();
  }
}
