/**
 * Solve orchestrator benchmark (issue #15, item 10). With the loopback model server answering at
 * once: the orchestration overhead per pass (a pass's wall time less its validation: retrieval
 * with its judgments, prompt, the HTTP round trip, applying edits, git, the raw and session
 * writes), target ≤ 20 ms, and retrieval's judgments per pass;
 * the size of the raw records per pass; and the time to create and remove a run's worktree on this
 * repository and on a git repository of a copy of the Python standard library. The solve runs go
 * through the engine as the product wires it (`createCore`, the host's client): the fixture is added
 * with `repos/add` and each run is a `plans/solve` request; its passes are read back from the
 * repository's raw DB. The worktree figures time the git piece alone, on purpose.
 *
 * Env: CRA_BENCH_SOLVE_RUNS (two-part runs, default 5), CRA_BENCH_SOLVE_FILES (stdlib files, default 3000).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openRawDatabase } from '../src/core/platform/db/raw';
import { Worktree } from '../src/core/platform/git';
import { packageRoot } from '../src/core/platform/paths';
import { OllamaTestServer } from '../src/core/testing/ollamaTestServer';
import { createSolveFixture, solveResponder, TWO_PARTS } from '../src/core/testing/solveFixture';
import { copyCorpus, corpusRoots } from './cli.bench';
import { benchEngine } from './engine';
import { runIfMain } from './standalone';
import type { BenchContext, BenchFigure } from './types';
import { repoPaths } from '../src/core/platform/layout';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
};
const round = (x: number) => Math.round(x * 10) / 10;

/** Create and remove a worktree `runs` times; median ms of each. */
async function worktreeTimes(repo: string, root: string, runs: number): Promise<{ create: number; remove: number }> {
  const create: number[] = [];
  const remove: number[] = [];
  for (let i = 0; i < runs; i++) {
    let t = performance.now();
    const w = await Worktree.create({ repo, commit: 'HEAD', root, label: 'bench' });
    create.push(performance.now() - t);
    t = performance.now();
    await w.remove();
    remove.push(performance.now() - t);
  }
  return { create: round(median(create)), remove: round(median(remove)) };
}

async function passOverhead(ctx: BenchContext, runs: number): Promise<BenchFigure[]> {
  const [fx, server] = await Promise.all([createSolveFixture(), OllamaTestServer.start()]);
  server.install('qwen3:0.6b');
  const dataDir = join(ctx.tmpDir, 'data');
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(join(dataDir, 'config.toml'), `[models]\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\nbase_url = "${server.url}"\n`);
  const engine = benchEngine(dataDir);
  try {
    const added = await engine.request('repos/add', { path: fx.repo.root });
    await engine.wait(added.runId, 'index');
    const repoId = added.repo.id;
    const perPass: number[] = [];
    const byType = new Map<string, number[]>();
    const validation: number[] = [];
    const bytes: number[] = [];
    const runWall: number[] = [];
    const judgments: number[] = [];
    for (let i = 0; i < runs; i++) {
      const { respond } = solveResponder(TWO_PARTS);
      server.script.respond = respond;
      const started = performance.now();
      const { runId, solveRunId: id } = await engine.request('plans/solve', { repoId, task: 'Add mul and formatProduct' });
      const outcome = await engine.wait(runId, 'solve');
      runWall.push(performance.now() - started);
      if (outcome.status !== 'complete') throw new Error(`bench run ${i} ended ${outcome.status}`);
      const raw = openRawDatabase(repoPaths(dataDir, repoId).raw);
      try {
        const passes = raw.prepare('select pass_type, task_run_id, created_at, finished_at, validation_json, length(coalesce(output_json, \'\')) + length(coalesce(diff, \'\')) + length(coalesce(validation_json, \'\')) as own from orchestrator_passes where orchestrator_run_id = ?').all(id) as Array<{ pass_type: string; task_run_id: string; created_at: string; finished_at: string; validation_json: string | null; own: number }>;
        for (const p of passes) {
          const ms = (p.validation_json ? (JSON.parse(p.validation_json) as { checks: Array<{ ms: number }> }).checks : []).reduce((n, c) => n + c.ms, 0);
          validation.push(ms);
          const overhead = Date.parse(p.finished_at) - Date.parse(p.created_at) - ms;
          perPass.push(overhead);
          byType.set(p.pass_type, [...(byType.get(p.pass_type) ?? []), overhead]);
          const calls = raw.prepare("select coalesce(sum(length(prompt) + length(coalesce(response, '')) + length(coalesce(system, ''))), 0) from model_calls where run_id = ?").pluck().get(p.task_run_id) as number;
          // Retrieval's binary judgments (scope, precision): part of the overhead since solve runs the pipeline.
          if (p.pass_type !== 'adjustment') judgments.push(raw.prepare("select count(*) from model_calls where run_id = ? and (stage = 'scope' or stage like 'precision%')").pluck().get(p.task_run_id) as number);
          bytes.push(p.own + calls);
        }
      } finally {
        raw.close();
      }
      ctx.log(`run ${i + 1}/${runs}: ${Math.round(runWall.at(-1)!)} ms, ${outcome.completed.length} steps`);
    }
    return [
      { name: 'solve.pass.overheadMs.p50', value: round(median(perPass)), unit: 'ms', better: 'lower', note: `per pass, validation excluded (zero-latency loopback server; ${perPass.length} passes of ${runs} two-part runs); target ≤ 20 ms` },
      ...[...byType].map(([type, xs]): BenchFigure => ({ name: `solve.pass.${type}.overheadMs.p50`, value: round(median(xs)), unit: 'ms', better: 'lower' })),
      { name: 'solve.pass.overheadMs.max', value: round(Math.max(...perPass)), unit: 'ms', better: 'lower' },
      { name: 'solve.pass.judgments.p50', value: median(judgments), unit: 'calls', better: 'lower', note: "retrieval's binary judgments (scope, precision) per pass that reads context, in the overhead above" },
      { name: 'solve.pass.validationMs.p50', value: round(median(validation.filter((v) => v > 0))), unit: 'ms', better: 'lower', note: 'tree-sitter syntax check of the changed files (no command configured)' },
      { name: 'solve.run.wallMs.p50', value: round(median(runWall)), unit: 'ms', better: 'lower', note: '9 passes, worktree create/remove and session archive included' },
      { name: 'solve.pass.rawBytes.p50', value: Math.round(median(bytes)), unit: 'bytes', better: 'lower', note: 'model calls (system, prompt, response) + pass row (output, diff, validation)' },
      { name: 'solve.pass.rawBytes.max', value: Math.max(...bytes), unit: 'bytes', better: 'lower' },
    ];
  } finally {
    await engine.dispose();
    fx.cleanup();
    await server.close();
  }
}

/** Run the suite. */
export async function run(ctx: BenchContext): Promise<BenchFigure[]> {
  const figures = await passOverhead(ctx, Number(process.env.CRA_BENCH_SOLVE_RUNS ?? 5));
  const root = join(ctx.tmpDir, 'worktrees');
  const own = await worktreeTimes(packageRoot(), root, 5);
  figures.push({ name: 'solve.worktree.thisRepo.createMs', value: own.create, unit: 'ms', better: 'lower', note: 'git worktree add at HEAD of this repository (median of 5)' }, { name: 'solve.worktree.thisRepo.removeMs', value: own.remove, unit: 'ms', better: 'lower' });
  const stdlib = join(ctx.tmpDir, 'stdlib');
  mkdirSync(stdlib, { recursive: true });
  const files = copyCorpus(corpusRoots(), stdlib, Number(process.env.CRA_BENCH_SOLVE_FILES ?? 3000));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: stdlib, stdio: 'ignore', env: { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.invalid', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.invalid' } });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'corpus');
  ctx.log(`stdlib copy: ${files} files`);
  const py = await worktreeTimes(stdlib, root, 5);
  figures.push({ name: 'solve.worktree.stdlib.createMs', value: py.create, unit: 'ms', better: 'lower', note: `git worktree add on a copy of the Python standard library (${files} files, median of 5)` }, { name: 'solve.worktree.stdlib.removeMs', value: py.remove, unit: 'ms', better: 'lower' });
  return figures;
}

runIfMain(__filename, 'solve', run);
