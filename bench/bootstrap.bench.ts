import { join } from 'node:path';
import { bootstrapDataset } from '../src/core/lab/training/bootstrap';
import { buildShopRepo } from '../src/core/testing/bootstrapFixture';
import type { BenchContext, BenchFigure } from './types';

/**
 * `cra bootstrap` throughput and the label balance it produces: on the shop fixture the tests use
 * (always available), and, when CRA_BENCH_BOOTSTRAP_REPO names a git repository, on its 30 most
 * recent qualifying commits too (figures prefixed `repo.`).
 */
export async function run(ctx: BenchContext): Promise<BenchFigure[]> {
  const figures = await measure(ctx, buildShopRepo(join(ctx.tmpDir, 'shop')), 'fixture', 50);
  const extra = process.env.CRA_BENCH_BOOTSTRAP_REPO;
  if (extra) figures.push(...(await measure(ctx, extra, 'repo', 30)));
  return figures;
}

async function measure(ctx: BenchContext, repoPath: string, prefix: string, commits: number): Promise<BenchFigure[]> {
  ctx.log(`bootstrapping ${repoPath}`);
  const s = await bootstrapDataset({ repoPath, dataDir: join(ctx.tmpDir, `data-${prefix}`), commits });
  const share = (c: { yes: number; no: number }) => (c.yes + c.no ? c.yes / (c.yes + c.no) : 0);
  return [
    { name: `${prefix}.commitsPerSecond`, value: s.added / Math.max(0.001, s.durationMs / 1000), unit: 'commits/s', better: 'higher', note: 'mining, one worktree moved through the parents, incremental index, pairs' },
    { name: `${prefix}.commits`, value: s.added, unit: 'commits', better: 'higher' },
    { name: `${prefix}.scope.yesShare`, value: share(s.counts.scope), unit: 'fraction', better: 'higher', note: `${s.counts.scope.yes} yes / ${s.counts.scope.no} no` },
    { name: `${prefix}.precision_pass1.yesShare`, value: share(s.counts.precision_pass1), unit: 'fraction', better: 'higher', note: `${s.counts.precision_pass1.yes} yes / ${s.counts.precision_pass1.no} no` },
  ];
}
