/**
 * "Check on this repository" (`cra models check`): labelled yes/no judgments from the repository's
 * own history — the bootstrap labels: changed files and needed neighbours yes, other scope
 * candidates no; touched symbols yes — asked of the model of each judging stage, as the pipeline
 * asks them. Figures: accuracy, balanced accuracy, AUC of P(yes), the share of unusable answers
 * (default-deny), p50 latency and tokens per second. Results are kept per (stage, model,
 * repository) in `<dataDir>/model-checks.json`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ModelCheckResult } from '../../../shared/contract';
import { AppError } from '../../../shared/contract';
import { writeFileAtomic } from '../../platform/config/configFile';
import type { LlmClient } from '../../platform/llm/client';
import { runBinaryJudgment, type Judgment, splitChatJudgment } from '../../features/retrieval';
import { throwIfAborted } from '../../platform/runtime/runs';
import { bootstrapDataset } from './bootstrap';
import type { ChatExample, DatasetManifest, DatasetStage } from './dataset';
import { checkPlans } from './planCheck';
import { modelCheckDir, modelChecksFile } from '../../platform/layout';

/** The judging stages a history can label, and the dataset files (pipeline call names) of each. */
export const CHECK_STAGES = { scope: ['scope'], precision: ['precision_pass1', 'precision_pass2'] } as const satisfies Record<string, readonly DatasetStage[]>;
/** One checkable stage: a judging stage, or plan (the share of valid plans). */
export type CheckStage = keyof typeof CHECK_STAGES | 'plan';

/** What to check. */
export interface ModelCheckOptions {
  repoPath: string;
  dataDir: string;
  llm: LlmClient;
  stages?: CheckStage[];
  /** Ask this model instead of each stage's assigned one. */
  model?: string;
  /** Judgments per stage (about half yes, half no where the history has both). */
  n: number;
  /** Commits of history to label (default 20; labelled commits are kept and reused). */
  commits?: number;
  runId?: string;
  signal?: AbortSignal;
  onProgress?(p: { phase: string; done: number; total: number; message: string }): void;
}

/** One labelled item. */
interface Item {
  call: DatasetStage;
  label: 'yes' | 'no';
  instruct: string;
  query: string;
  document: string;
}

function readItems(dir: string, calls: readonly DatasetStage[]): Item[] {
  const out: Item[] = [];
  for (const call of calls) {
    const file = join(dir, `${call}.jsonl`);
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const x = JSON.parse(line) as ChatExample;
      const parts = splitChatJudgment(x.messages[0]?.content ?? '', x.messages[1]?.content ?? '');
      if (parts && (x.meta.label === 'yes' || x.meta.label === 'no')) out.push({ call, label: x.meta.label, ...parts });
    }
  }
  return out;
}

/** `n` items spread evenly over the list: half yes and half no where both are there, the rest from the other label. */
export function pickBalanced<T extends { label: 'yes' | 'no' }>(items: readonly T[], n: number): T[] {
  const yes = items.filter((i) => i.label === 'yes');
  const no = items.filter((i) => i.label === 'no');
  const wantYes = Math.min(yes.length, Math.max(Math.ceil(n / 2), n - no.length));
  const wantNo = Math.min(no.length, n - wantYes);
  const spread = (xs: T[], k: number) => Array.from({ length: k }, (_, i) => xs[Math.floor((i * xs.length) / k)] as T);
  return [...spread(yes, wantYes), ...spread(no, wantNo)];
}

/** Area under the ROC curve of scores against labels (ties count half); null without both labels. */
export function auc(scored: ReadonlyArray<{ score: number; label: 'yes' | 'no' }>): number | null {
  const pos = scored.filter((s) => s.label === 'yes');
  const neg = scored.filter((s) => s.label === 'no');
  if (!pos.length || !neg.length) return null;
  let wins = 0;
  for (const p of pos) for (const q of neg) wins += p.score > q.score ? 1 : p.score === q.score ? 0.5 : 0;
  return wins / (pos.length * neg.length);
}

/** The figures of one stage's judgments. */
export function checkFigures(items: readonly Item[], judged: readonly Judgment[], latencies: readonly number[]): Omit<ModelCheckResult, 'stage' | 'model' | 'repoPath' | 'checkedAt'> {
  const n = items.length;
  const right = (i: number) => judged[i]?.verdict === items[i]?.label;
  const positives = items.filter((x) => x.label === 'yes').length;
  const tp = items.filter((x, i) => x.label === 'yes' && right(i)).length;
  const tn = items.filter((x, i) => x.label === 'no' && right(i)).length;
  const rates = [positives ? tp / positives : null, n - positives ? tn / (n - positives) : null].filter((r): r is number => r !== null);
  const scored = judged.every((j) => j.pYes !== undefined) ? judged.map((j, i) => ({ score: j.pYes as number, label: items[i]!.label })) : [];
  const sorted = [...latencies].sort((a, b) => a - b);
  const tokens = judged.reduce((sum, j) => sum + j.promptTokens + j.completionTokens, 0);
  const seconds = latencies.reduce((a, b) => a + b, 0) / 1000;
  return {
    n,
    positives,
    accuracy: n ? (tp + tn) / n : 0,
    balancedAccuracy: rates.length ? rates.reduce((a, b) => a + b, 0) / rates.length : 0,
    auc: scored.length ? auc(scored) : null,
    unusableRate: n ? judged.filter((j) => j.read === 'default-deny').length / n : 0,
    p50LatencyMs: sorted.length ? (sorted[Math.floor((sorted.length - 1) / 2)] as number) : 0,
    tokensPerSecond: seconds > 0 ? Math.round((tokens / seconds) * 10) / 10 : 0,
  };
}

/** Label the history (reusing commits labelled before), then ask each stage's model; the results are stored. */
export async function checkModels(options: ModelCheckOptions): Promise<ModelCheckResult[]> {
  const stages = options.stages ?? (['scope', 'precision', 'plan'] as CheckStage[]);
  options.onProgress?.({ phase: 'labelling', done: 0, total: 1, message: 'labelling the history' });
  const summary = await bootstrapDataset({
    repoPath: options.repoPath,
    dataDir: options.dataDir,
    out: modelCheckDir(options.dataDir, options.repoPath),
    commits: options.commits ?? 20,
    ...(options.signal ? { signal: options.signal } : {}),
    onProgress: (p) => options.onProgress?.({ phase: 'labelling', done: p.done, total: p.total, message: p.message }),
  });
  const results: ModelCheckResult[] = [];
  for (const stage of stages) {
    if (stage === 'plan') {
      results.push(await planResult(options, summary.dir));
      continue;
    }
    const items = pickBalanced(readItems(summary.dir, CHECK_STAGES[stage]), options.n);
    const assigned = options.llm.resolve({ stage });
    const model = options.model ? { ...assigned, model: options.model } : assigned;
    const base = { stage, model: model.model, repoPath: options.repoPath, checkedAt: new Date().toISOString() };
    if (!items.length) {
      results.push({ ...base, ...checkFigures([], [], []), note: `The history has no labelled ${stage} judgments (${summary.mined} commits qualified); a repository needs commits that change a few indexed files.` });
      continue;
    }
    const judged: Judgment[] = [];
    const latencies: number[] = [];
    for (const [i, item] of items.entries()) {
      throwIfAborted(options.signal);
      options.onProgress?.({ phase: stage, done: i, total: items.length, message: model.model });
      const started = performance.now();
      judged.push(await runBinaryJudgment({ llm: options.llm, stage: item.call, instruct: item.instruct, task: item.query, model, ...(options.runId ? { runId: options.runId } : {}), ...(options.signal ? { signal: options.signal } : {}) }, item.document));
      latencies.push(Math.round(performance.now() - started));
    }
    results.push({ ...base, ...checkFigures(items, judged, latencies) });
  }
  saveChecks(options.dataDir, results);
  return results;
}

/** The plan stage's result: N tasks of the labelled commits (spread over them), planned once each. */
async function planResult(options: ModelCheckOptions, dir: string): Promise<ModelCheckResult> {
  const assigned = options.llm.resolve({ stage: 'plan' });
  const model = options.model ? { ...assigned, model: options.model } : assigned;
  const commits = (JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as DatasetManifest).commits;
  const k = Math.min(options.n, commits.length);
  const picked = Array.from({ length: k }, (_, i) => commits[Math.floor((i * commits.length) / k)]!);
  const base = { stage: 'plan', model: model.model, repoPath: options.repoPath, checkedAt: new Date().toISOString(), positives: 0, accuracy: null, balancedAccuracy: null, auc: null };
  const done = await checkPlans({ llm: options.llm, model, repoRoot: options.repoPath, commits: picked, ...(options.runId ? { runId: options.runId } : {}), ...(options.signal ? { signal: options.signal } : {}), onItem: (i, total) => options.onProgress?.({ phase: 'plan', done: i, total, message: model.model }) });
  const sorted = [...done.latencies].sort((a, b) => a - b);
  const seconds = done.latencies.reduce((a, b) => a + b, 0) / 1000;
  return {
    ...base,
    n: done.n,
    validPlanRate: done.n ? done.valid / done.n : null,
    unusableRate: done.n ? (done.n - done.valid) / done.n : 0,
    p50LatencyMs: sorted.length ? (sorted[Math.floor((sorted.length - 1) / 2)] as number) : 0,
    tokensPerSecond: seconds > 0 ? Math.round((done.tokens / seconds) * 10) / 10 : 0,
    ...(done.n ? {} : { note: 'The history has no qualifying commits to plan.' }),
    ...(done.failed ? { note: `${done.failed} of ${done.n} plan calls failed (counted as invalid plans): ${done.firstError}` } : {}),
  };
}

const keyOf = (r: ModelCheckResult) => JSON.stringify([r.stage, r.model, r.repoPath]);

/** Stored results, newest first; of one repository when given. */
export function readChecks(dataDir: string, repoPath?: string): ModelCheckResult[] {
  const file = modelChecksFile(dataDir);
  if (!existsSync(file)) return [];
  let list: ModelCheckResult[];
  try {
    list = (JSON.parse(readFileSync(file, 'utf8')) as { results: ModelCheckResult[] }).results;
  } catch (error) {
    throw new AppError('CONFIG_INVALID', `${file} is not valid JSON (${(error as Error).message}). Delete it; checks can be run again.`);
  }
  return list.filter((r) => !repoPath || r.repoPath === repoPath).sort((a, b) => b.checkedAt.localeCompare(a.checkedAt));
}

/** Keep the latest result of each (stage, model, repository). */
function saveChecks(dataDir: string, results: readonly ModelCheckResult[]): void {
  const byKey = new Map(readChecks(dataDir).map((r) => [keyOf(r), r]));
  for (const r of results) byKey.set(keyOf(r), r);
  writeFileAtomic(modelChecksFile(dataDir), `${JSON.stringify({ version: 1, results: [...byKey.values()] }, null, 2)}\n`);
}
