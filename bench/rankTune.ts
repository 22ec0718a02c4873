/**
 * Ranking tuning harness (issue #12): re-rank the tasks of a `cra eval` report under many settings
 * of the ranking constants without re-indexing per setting.
 *
 *   CRA_FROM_SOURCE=1 npx tsx bench/rankTune.ts --report base/<repo>.json --repo /work/devset/<repo> \
 *     --snapshots /tmp/rank-snap/<repo> --configs configs.json --out tuned/<repo>.json
 *
 * For each task of the report (oldest first, as `cra eval` runs them) the product index is brought
 * to the task's parent commit incrementally, exactly as `cra eval` does, and a copy of it is kept
 * under --snapshots; a later run with the same folder reuses the copies, so only the search runs.
 * `configs.json` is `[{ "name": "...", "overrides": { "GRAPH": { "testDemotion": 0.5 } } }]`
 * (see `overrideRanking`). The output holds, per setting and task, the gold ranks in the ranking
 * over every file (`all`) and over the source files of the task's language (`source`), 1-based,
 * null beyond rank 50 — what `scripts/rank-loo.mjs` turns into the tables and the
 * leave-one-repository-out choice — and, for tasks whose report has gold functions, the ranks of
 * those units in the function-level ranking (`units`, as `cra eval` ranks them).
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EvalReport } from '../src/shared/contract/eval';
import { isTaskSourcePath, taskLanguages } from '../src/core/lab/eval/classify';
import { goldRanks } from '../src/core/lab/eval/metrics';
import { productRetrieval } from '../src/core/lab/eval/product';
import { resolveCommit, Worktree } from '../src/core/platform/git';
import { openDatabase } from '../src/core/platform/db/open';
import { goldUnits, scoreUnits, unitRanking } from '../src/core/lab/eval/functionLevel';
import { changedLines } from '../src/core/lab/eval/goldLines';
import { readTasksFile } from '../src/core/lab/eval/tasksFile';
import { KnowledgeBase } from '../src/core/knowledge/kb/knowledgeBase';
import { searchRepository } from '../src/core/knowledge/search/search';
import { overrideRanking, type RankingOverrides } from '../src/core/knowledge/search/rankingConstants';

const DEPTH = 50;

function arg(name: string): string {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? process.argv[i + 1] : undefined;
  if (!value) throw new Error(`--${name} is required (see the comment at the top of bench/rankTune.ts).`);
  return value;
}

async function main(): Promise<void> {
  // --tasks FILE (a `cra eval --tasks` file) instead of --report: the tasks are read from it, and
  // the gold functions of a task that names its fixing commit are computed at its parent.
  const tasksFile = process.argv.includes('--tasks') ? arg('tasks') : undefined;
  const report = tasksFile
    ? ({ tasks: readTasksFile(tasksFile).map((t) => ({ ...t, results: {} })) } as unknown as EvalReport)
    : (JSON.parse(readFileSync(arg('report'), 'utf8')) as EvalReport);
  const repo = arg('repo');
  const snapshots = arg('snapshots');
  const configs = JSON.parse(readFileSync(arg('configs'), 'utf8')) as Array<{ name: string; overrides: RankingOverrides }>;
  mkdirSync(snapshots, { recursive: true });
  const tasks = report.tasks.filter((t) => !t.error).sort((a, b) => (a.date ?? '').localeCompare(b.date ?? ''));
  const retrieval = productRetrieval();
  const work = join(tmpdir(), `rank-tune-${process.pid}`);
  const stateDir = join(work, 'index');
  mkdirSync(stateDir, { recursive: true });
  let worktree: Worktree | undefined;
  const out: Record<string, Array<{ gold: string[]; all: Record<string, number | null>; source: Record<string, number | null>; units?: Record<string, number | null>; ms: number }>> = {};
  for (const c of configs) out[c.name] = [];
  try {
    for (const [i, task] of tasks.entries()) {
      const snapshot = join(snapshots, String(i));
      if (!existsSync(join(snapshot, 'curated.sqlite'))) {
        const parent = await resolveCommit(repo, task.parent);
        if (!parent) throw new Error(`parent ${task.parent} is not a commit of ${repo}`);
        if (!worktree) worktree = await Worktree.create({ repo, commit: parent, root: join(work, 'worktrees'), label: 'eval' });
        else await worktree.checkout(parent);
        await retrieval.index({ root: worktree.path, stateDir });
        mkdirSync(snapshot, { recursive: true });
        copyFileSync(join(stateDir, 'curated.sqlite'), join(snapshot, 'curated.sqlite'));
      }
      const searchDir = snapshot;
      const languages = taskLanguages(task.gold);
      // One connection for every setting of a task: the per-connection caches (term frequencies,
      // file sizes) do not depend on the constants, and reopening per setting dominated the time.
      const db = openDatabase(join(searchDir, 'curated.sqlite'), { readOnly: true });
      if (!task.goldFunctions && task.commit) task.goldFunctions = goldUnits(KnowledgeBase.of(db), await changedLines(repo, task.parent, task.commit, task.gold));
      try {
      for (const c of configs) {
        const restore = overrideRanking(c.overrides);
        try {
          const start = performance.now();
          const results = await searchRepository(db, task.task, { limit: 4 * DEPTH, mode: 'keyword' });
          const ranked = results.map((r) => r.path);
          const ms = performance.now() - start;
          // Function level as `cra eval` scores it, where the report has the task's gold units.
          const units = task.goldFunctions?.length ? { units: scoreUnits(unitRanking(results), task.goldFunctions, [10], ms, DEPTH).goldRanks } : {};
          const all = [...new Set(ranked)].slice(0, DEPTH);
          const source = [...new Set(ranked.filter((p) => isTaskSourcePath(p, languages)))].slice(0, DEPTH);
          out[c.name]!.push({ gold: task.gold, all: goldRanks(all, task.gold), source: goldRanks(source, task.gold), ...units, ms: Math.round(ms) });
        } finally {
          restore();
        }
      }
      } finally {
        db.close();
      }
      process.stderr.write(`${i + 1}/${tasks.length}\r`);
    }
  } finally {
    await worktree?.remove();
    rmSync(work, { recursive: true, force: true });
  }
  writeFileSync(arg('out'), JSON.stringify({ repo, configs, results: out }));
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
