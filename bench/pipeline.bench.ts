/**
 * Retrieval pipeline benchmark (issue #13 item 15): the pipeline's own cost per binary judgment
 * against the zero-latency loopback model server (src/core/testing/ollamaTestServer.ts, answering
 * at once), at concurrency 1 and 4, on an index of the Python standard library; candidates and
 * judgments per task; and one 50-judgment task end to end (analysis → scope → precision → package).
 * Every call goes through the product's LlmClient over real HTTP and is logged to a real raw DB, as
 * in a `retrieve` run. The server runs in a child process (bench/pipelineServer.ts), so the CPU
 * time per judgment is the pipeline's own (prompts, HTTP client, answer parsing, call and decision
 * logs); the wall time also holds the round trip and whatever else the machine is doing.
 *
 * Env: CRA_BENCH_STDLIB (default: the newest /usr/lib/python3.*), CRA_BENCH_SEARCH_DB (reuse an
 * indexed curated.sqlite; copied, never modified), CRA_BENCH_PIPELINE_TASKS (default 12).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseToml, validateConfig } from '../src/core/platform/config/load';
import { openDatabase, type Db } from '../src/core/platform/db/open';
import { openRawDatabase } from '../src/core/platform/db/raw';
import { indexRepository } from '../src/core/knowledge/indexer/indexer';
import { KnowledgeBase } from '../src/core/knowledge/kb/knowledgeBase';
import { LlmClient } from '../src/core/platform/llm/client';
import { ModelRouter } from '../src/core/platform/llm/router';
import { RawCallLog } from '../src/core/platform/logs/callLog';
import { RawDecisionLog } from '../src/core/features/retrieval/decisionLog';
import { buildPackage } from '../src/core/features/retrieval/package';
import { runPipeline } from '../src/core/features/retrieval/stage';
import { PrecisionStage, type PrecisionOptions } from '../src/core/features/retrieval/stages/precision';
import { SCOPE_DEFAULTS, ScopeStage, type ScopeOptions } from '../src/core/features/retrieval/stages/scope';
import { analyzeTask } from '../src/core/features/retrieval/taskAnalysis';
import { indexerDeps } from '../src/core/testing/searchRepo';
import { benchQueries, stdlibRoot } from './search.bench';
import { runIfMain } from './standalone';
import type { BenchContext, BenchFigure } from './types';

const MODEL = 'qwen3:0.6b';

/** The product's client, every role routed to the loopback server's model, logging to `raw`. */
export function benchClient(url: string, raw: Db): LlmClient {
  const toml = `[models]\nreasoning = "${MODEL}"\ncoding = "${MODEL}"\nbase_url = "${url}"\n`;
  const router = new ModelRouter({ values: validateConfig(parseToml(toml, 'bench'), 'bench'), files: ['bench'], primaryFile: 'bench' });
  return new LlmClient({ router: () => router, log: new RawCallLog(raw), retry: { attempts: 1 } });
}

/** One task's run: candidates, judgments (calls logged under its run), and time. */
export interface TaskRun {
  candidates: number;
  judgments: number;
  ms: number;
}

/** Start the loopback server in a child process (bench/pipelineServer.ts); its URL and the process. */
export async function startServerProcess(): Promise<{ url: string; child: ChildProcess }> {
  const launch = `require('tsx/cjs/api').register(); require(${JSON.stringify(join(__dirname, 'pipelineServer.ts'))});`;
  const child = spawn(process.execPath, ['-e', launch, '--', 'pipelineServer', MODEL], { cwd: join(__dirname, '..'), stdio: ['pipe', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`the loopback server process ended (${code}) before listening`)));
  });
  return { url, child };
}

let runs = 0;

/**
 * Run scope and precision (and the package) on each task at `concurrency`, with the server saying
 * yes to everything; judgments are the calls logged under the run (scope and precision passes).
 */
export async function measureTasks(args: {
  kb: KnowledgeBase;
  raw: Db;
  url: string;
  tasks: readonly string[];
  concurrency: number;
  scope?: ScopeOptions;
  precision?: PrecisionOptions;
  readSource?: (path: string) => string | null;
}): Promise<TaskRun[]> {
  const llm = benchClient(args.url, args.raw);
  const decisions = new RawDecisionLog(args.raw);
  const log = new RawCallLog(args.raw);
  const out: TaskRun[] = [];
  for (const [i, text] of args.tasks.entries()) {
    const started = performance.now();
    const task = await analyzeTask(text, args.kb, { id: `bench-${i}` });
    const runId = `bench-${++runs}`;
    const result = await runPipeline({ stages: [new ScopeStage(args.scope), new PrecisionStage(args.precision)], kb: args.kb, task, llm, runId, budgetTokens: 28672, decisions, log, concurrency: args.concurrency });
    buildPackage({ task, files: result.context.files, budgetTokens: 28672, readSource: args.readSource ?? (() => null), kb: args.kb });
    const ms = performance.now() - started;
    const candidates = args.raw.prepare("select count(*) from retrieval_decisions where run_id = ? and stage = 'scope' and decision != 'over-cap'").pluck().get(runId) as number;
    const judgments = args.raw.prepare("select count(*) from model_calls where run_id = ? and (stage = 'scope' or stage like 'precision%')").pluck().get(runId) as number;
    out.push({ candidates, judgments, ms });
  }
  return out;
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length === 0 ? 0 : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const r2 = (x: number) => Math.round(x * 100) / 100;

/** Tasks from the corpus: docstring phrases and split identifiers, as a user would describe a change. */
function benchTasks(db: Db, n: number): string[] {
  return benchQueries(db, 7)
    .filter((q) => q.includes(' '))
    .slice(0, n)
    .map((q) => `Fix a bug in ${q}`);
}

/** Run the pipeline benchmark: figures for `npm run bench` (bin/bench.js). */
export async function run(ctx: BenchContext): Promise<BenchFigure[]> {
  const file = join(ctx.tmpDir, 'curated.sqlite');
  const corpus = stdlibRoot();
  const reuse = process.env.CRA_BENCH_SEARCH_DB;
  if (reuse && existsSync(reuse)) copyFileSync(reuse, file);
  else {
    ctx.log(`indexing ${corpus}`);
    await indexRepository({ root: corpus, curatedFile: file, ...indexerDeps() });
  }
  const db = openDatabase(file, { readOnly: true });
  const tasks = benchTasks(db, Number(process.env.CRA_BENCH_PIPELINE_TASKS ?? 12));
  db.close();
  const kb = KnowledgeBase.open(file, 'stdlib');
  const raw = openRawDatabase(join(ctx.tmpDir, 'raw.sqlite'));
  // A zero-latency judge that keeps everything (the most judgments per task), in its own process.
  const { url, child } = await startServerProcess();
  const readSource = (path: string) => {
    try {
      return readFileSync(join(corpus, path), 'utf8');
    } catch {
      return null;
    }
  };
  try {
    // Warm-up: statements prepared, the HTTP agent connected.
    await measureTasks({ kb, raw, url, tasks: tasks.slice(0, 2), concurrency: 1, readSource });
    const figures: BenchFigure[] = [];
    const perJudgment: Record<number, number> = {};
    for (const concurrency of [1, 4]) {
      ctx.log(`${tasks.length} tasks at concurrency ${concurrency}`);
      const cpu = process.cpuUsage();
      const runs = await measureTasks({ kb, raw, url, tasks, concurrency, readSource });
      const used = process.cpuUsage(cpu);
      const judgments = sum(runs.map((r) => r.judgments));
      perJudgment[concurrency] = sum(runs.map((r) => r.ms)) / judgments;
      figures.push(
        { name: `pipeline.c${concurrency}.msPerJudgment`, value: r2(perJudgment[concurrency]!), unit: 'ms', better: 'lower', note: `wall time of analysis + scope + precision + package over ${judgments} judgments of ${runs.length} stdlib tasks, loopback server answering at once; target < 2 ms; load average ${loadavg()[0]!.toFixed(1)}` },
        { name: `pipeline.c${concurrency}.cpuMsPerJudgment`, value: r2((used.user + used.system) / 1000 / judgments), unit: 'ms', better: 'lower', note: 'CPU time of the pipeline process per judgment (client, prompts, parsing, call and decision logs; the server runs in a child process)' },
      );
      if (concurrency === 1) {
        figures.push(
          { name: 'pipeline.task.candidates.median', value: median(runs.map((r) => r.candidates)), unit: 'files', better: 'lower', note: `scope candidates within the cap (default ${SCOPE_DEFAULTS.maxCandidates}), seeds included` },
          { name: 'pipeline.task.judgments.median', value: median(runs.map((r) => r.judgments)), unit: 'calls', better: 'lower', note: 'scope + precision passes, a judge saying yes to all (the most a task makes)' },
          { name: 'pipeline.task.ms.median', value: r2(median(runs.map((r) => r.ms))), unit: 'ms', better: 'lower' },
        );
      }
    }
    // One task with caps that make it exactly 50 judgments: 10 judged scope candidates, 20 symbols × 2 passes.
    const fifty = await measureTasks({ kb, raw, url, tasks: tasks.slice(0, 1), concurrency: 1, scope: { maxCandidates: 15, searchSeeds: 5 }, precision: { maxSymbols: 20 }, readSource });
    const one = fifty[0]!;
    figures.push({ name: 'pipeline.task50.ms', value: r2(one.ms), unit: 'ms', better: 'lower', note: `one stdlib task end to end (analysis → scope → precision → package), ${one.judgments} judgments, ${one.candidates} candidates, concurrency 1` });
    return figures;
  } finally {
    kb.close();
    raw.close();
    child.stdin!.end();
  }
}

runIfMain(__filename, 'pipeline', run);
