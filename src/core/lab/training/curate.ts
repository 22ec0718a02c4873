import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { AppError } from '../../../shared/contract';
import type { DatasetSummary, LabelCounts } from '../../../shared/contract/training';
import { confinePath } from '../../platform/fs/confine';
import { throwIfAborted } from '../../platform/runtime/runs';
import { CURATED_MANIFEST, type CuratedManifest, type CuratedStage, type DroppedCounts, type WrittenFile } from './curatedManifest';
import type { LogSources } from './logSources';
import { trainingStageSchema, type TrainingPlanArtifact } from './trainPlan';
import { datasetsDir } from '../../platform/layout';

/** One candidate training example before curation. */
export interface Candidate {
  messages: [{ role: 'system'; content: string }, { role: 'user'; content: string }, { role: 'assistant'; content: string }];
  /** yes / no for a judgment; null for a free answer (plan, execute). */
  label: 'yes' | 'no' | null;
  /** What the held-out split keeps together: the run (logged) or the commit (synthetic). */
  task: string;
  source: 'logged' | 'synthetic';
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
/** The de-duplication key: the prompt a model sees (system + user). */
export const promptKey = (c: Pick<Candidate, 'messages'>) => sha(`${c.messages[0].content}\u0000${c.messages[1].content}`);
/** A stable order for sampling: by a hash of the key and a seed, so a run is reproducible. */
const ranked = <T>(xs: readonly T[], key: (x: T) => string, seed: string) => [...xs].map((x) => ({ x, h: sha(`${seed}|${key(x)}`) })).sort((a, b) => a.h.localeCompare(b.h)).map((e) => e.x);

/** Keep the first example of each prompt; the others are counted as duplicates. */
export function dedupeByPrompt<T extends Pick<Candidate, 'messages'>>(xs: readonly T[]): { kept: T[]; duplicates: number } {
  const seen = new Set<string>();
  const kept: T[] = [];
  for (const x of xs) {
    const k = promptKey(x);
    if (seen.has(k)) continue;
    seen.add(k);
    kept.push(x);
  }
  return { kept, duplicates: xs.length - kept.length };
}

/**
 * As many yes as no: the larger label is sampled down (a seeded, reproducible choice) to the
 * smaller one's count, capped at `max` in all. Free answers (no label) are only capped. When one
 * label has no examples, nothing can be balanced: the examples are kept (capped) and `balanced` is false.
 */
export function balanceLabels<T extends Pick<Candidate, 'label' | 'messages'>>(xs: readonly T[], max: number, seed: string): { kept: T[]; balance: number; cap: number; balanced: boolean } {
  const yes = xs.filter((x) => x.label === 'yes');
  const no = xs.filter((x) => x.label === 'no');
  const free = xs.filter((x) => x.label === null);
  if (yes.length === 0 || no.length === 0) {
    const all = ranked(xs, promptKey, seed);
    return { kept: all.slice(0, max), balance: 0, cap: Math.max(0, all.length - max), balanced: yes.length + no.length === 0 };
  }
  const each = Math.min(yes.length, no.length);
  const per = Math.min(each, Math.floor(max / 2));
  const take = (list: T[]) => ranked(list, promptKey, seed).slice(0, per);
  const kept = [...take(yes), ...take(no), ...ranked(free, promptKey, seed).slice(0, Math.max(0, max - 2 * per))];
  const balance = yes.length - each + (no.length - each);
  return { kept, balance, cap: xs.length - balance - kept.length, balanced: true };
}

/**
 * Hold out a test split by task: tasks are ordered by a seeded hash and the first
 * round(n × fraction) of them (at least one when there are two or more) go to test, with every
 * example of theirs, so no task is in both splits.
 */
export function splitByTask<T extends Pick<Candidate, 'task'>>(xs: readonly T[], fraction: number, seed: string): { train: T[]; test: T[]; tasks: { train: number; test: number } } {
  const tasks = ranked([...new Set(xs.map((x) => x.task))], (t) => t, seed);
  const n = tasks.length < 2 ? 0 : Math.min(tasks.length - 1, Math.max(1, Math.round(tasks.length * fraction)));
  const held = new Set(tasks.slice(0, n));
  return { train: xs.filter((x) => !held.has(x.task)), test: xs.filter((x) => held.has(x.task)), tasks: { train: tasks.length - n, test: n } };
}

const JUDGMENT = /^(scope|precision_pass\d)$/;

/** Logged examples of a stage: judged decisions (the call's prompt → the verdict) or, for other stages, answered calls. */
function loggedCandidates(sources: LogSources, stage: string, plan: TrainingPlanArtifact['plan'], dropped: DroppedCounts): Candidate[] {
  const out: Candidate[] = [];
  for (const src of sources.sources) {
    if (JUDGMENT.test(stage)) {
      for (const { decision: d, outcome } of src.analysis.decisionOutcomes({ stage })) {
        if (!d.call) continue;
        if (d.call.errorCode || d.call.response === null) {
          dropped.unparseable += 1;
          continue;
        }
        if (d.defaultDeny || d.verdict === null) {
          if (plan.data.exclude_default_denied || d.verdict === null) {
            dropped.defaultDenied += 1;
            continue;
          }
        }
        if (plan.data.exclude_failed_runs && (outcome?.outcome === 'failed' || outcome?.outcome === 'partial')) {
          dropped.failedRun += 1;
          continue;
        }
        out.push({ messages: [{ role: 'system', content: d.call.system ?? '' }, { role: 'user', content: d.call.prompt }, { role: 'assistant', content: d.verdict }], label: d.verdict, task: `${src.repoId ?? 'user'}:${d.runId}`, source: 'logged' });
      }
    } else {
      const runs = new Map(src.analysis.runs().map((r) => [r.runId, r.outcome]));
      for (const c of src.analysis.calls({ stage, limit: 1_000_000 })) {
        if (c.errorCode || !c.response?.trim()) {
          dropped.unparseable += 1;
          continue;
        }
        const outcome = c.runId ? runs.get(c.runId) : undefined;
        if (plan.data.exclude_failed_runs && (outcome === 'failed' || outcome === 'partial')) {
          dropped.failedRun += 1;
          continue;
        }
        const answer = c.response.replace(/<think>[\s\S]*?<\/think>/g, '').trim();
        out.push({ messages: [{ role: 'system', content: c.system ?? '' }, { role: 'user', content: c.prompt }, { role: 'assistant', content: answer }], label: null, task: `${src.repoId ?? 'user'}:${c.runId ?? `call-${c.id}`}`, source: 'logged' });
      }
    }
  }
  return out.filter((c) => c.messages.every((m) => m.content.length > 0));
}

/** Synthetic examples of a stage from the bootstrap datasets. */
function syntheticCandidates(datasets: readonly DatasetSummary[], stage: string): Candidate[] {
  const out: Candidate[] = [];
  for (const d of datasets) {
    const file = d.kind === 'bootstrap' ? d.files[stage] : undefined;
    if (!file || !existsSync(join(d.dir, file))) continue;
    for (const line of readFileSync(join(d.dir, file), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const x = JSON.parse(line) as { messages: Candidate['messages']; meta: { commit: string; label: string } };
      const label = x.meta.label === 'yes' || x.meta.label === 'no' ? x.meta.label : null;
      out.push({ messages: x.messages, label, task: `${d.repoPath ?? d.id}@${x.meta.commit}`, source: 'synthetic' });
    }
  }
  return out;
}

/** Options of {@link curateData}. */
export interface CurateOptions {
  dataDir: string;
  plan: { artifact: TrainingPlanArtifact; sha256: string; file: string };
  sources: LogSources;
  datasets: readonly DatasetSummary[];
  /** The output folder (default `<data dir>/datasets/curated-<plan id>`); it must not exist. */
  out?: string;
  signal?: AbortSignal;
  onProgress?(p: { done: number; total: number; message: string }): void;
}

const counts = (xs: readonly Candidate[]): LabelCounts => ({ examples: xs.length, yes: xs.filter((x) => x.label === 'yes').length, no: xs.filter((x) => x.label === 'no').length });
const jsonl = (xs: readonly Candidate[]) => xs.map((x) => `${JSON.stringify({ messages: x.messages })}\n`).join('');

/**
 * Select training data by a plan: for the plan's stage (and its extra stages), the logged
 * examples (judged decisions, or answered calls for free-answer stages) and the synthetic ones,
 * filtered (default-denied, failed or unparseable calls, runs that failed when the plan says so),
 * de-duplicated by prompt, balanced yes/no, capped, split by task; written as `<stage>.train.jsonl`
 * and `<stage>.test.jsonl` in chat format, `dpo.jsonl` when the log holds plan adjustments, and
 * curated.json (counts, the plan and its hash, each file's hash). Everything is written into a
 * temporary sibling folder that is renamed into place at the end: an interrupted run leaves no
 * half-written dataset.
 */
export function curateData(options: CurateOptions): { dir: string; manifest: CuratedManifest } {
  const { artifact } = options.plan;
  const plan = artifact.plan;
  // Checked again here, not only where the plan file is read: whatever the plan says, every file goes into the output folder.
  const stages = [...new Set([plan.stage, ...plan.data.extra_stages])];
  for (const stage of stages) {
    if (!trainingStageSchema.safeParse(stage).success) throw new AppError('VALIDATION', `The training plan names the stage ${JSON.stringify(stage).slice(0, 60)}, which is not a stage name (lower-case letters, digits and _); give the file cra train-plan wrote.`);
  }
  const out = options.out ? resolve(options.out) : defaultCuratedDir(options.dataDir, artifact.id);
  if (existsSync(out)) throw new AppError('VALIDATION', `${out} already exists; give another --out folder or remove it.`);
  const tmp = join(dirname(out), `.${basename(out)}.tmp-${process.pid}-${Date.now()}`);
  mkdirSync(tmp, { recursive: true });
  const warnings: string[] = [];
  try {
    const manifestStages: Record<string, CuratedStage> = {};
    const write = (name: string, text: string, lines: number): WrittenFile => {
      writeInside(tmp, name, text);
      return { file: name, lines, sha256: sha(text) };
    };
    stages.forEach((stage, i) => {
      throwIfAborted(options.signal);
      options.onProgress?.({ done: i, total: stages.length, message: stage });
      const dropped: DroppedCounts = { defaultDenied: 0, unparseable: 0, failedRun: 0, duplicate: 0, balance: 0, cap: 0 };
      const logged = plan.data.sources.includes('logged') ? loggedCandidates(options.sources, stage, plan, dropped) : [];
      const synthetic = plan.data.sources.includes('synthetic') ? syntheticCandidates(options.datasets, stage) : [];
      const { kept: unique, duplicates } = dedupeByPrompt([...logged, ...synthetic]);
      dropped.duplicate = duplicates;
      const seed = `${artifact.id}|${stage}`;
      let selected: Candidate[];
      let balanced = true;
      if (plan.data.balance_labels) {
        const b = balanceLabels(unique, plan.data.max_examples, seed);
        selected = b.kept;
        dropped.balance = b.balance;
        dropped.cap = b.cap;
        balanced = b.balanced;
        if (!b.balanced) warnings.push(`${stage}: only one label (${counts(unique).yes} yes, ${counts(unique).no} no); nothing to balance against`);
      } else {
        selected = ranked(unique, promptKey, seed).slice(0, plan.data.max_examples);
        dropped.cap = unique.length - selected.length;
      }
      const split = splitByTask(selected, plan.data.test_fraction, seed);
      if (selected.length && split.tasks.test === 0) warnings.push(`${stage}: one task only, so no test split could be held out`);
      manifestStages[stage] = {
        train: counts(split.train),
        test: counts(split.test),
        tasks: split.tasks,
        files: { train: write(`${stage}.train.jsonl`, jsonl(split.train), split.train.length), test: write(`${stage}.test.jsonl`, jsonl(split.test), split.test.length) },
        dropped,
        sources: { logged: logged.length, synthetic: synthetic.length },
        balanced,
      };
    });
    const pairs = preferencePairs(options.sources);
    const dpo = pairs.length ? { ...write('dpo.jsonl', pairs.map((p) => `${JSON.stringify(p)}\n`).join(''), pairs.length), pairs: pairs.length } : null;
    const manifest: CuratedManifest = {
      version: 1,
      kind: 'curated',
      createdAt: new Date().toISOString(),
      plan: { file: options.plan.file, id: artifact.id, sha256: options.plan.sha256, stage: plan.stage },
      stages: manifestStages,
      dpo,
      inputs: { rawDatabases: options.sources.sources.map((s) => s.file), datasets: options.datasets.filter((d) => d.kind === 'bootstrap').map((d) => d.dir) },
      warnings,
    };
    writeInside(tmp, CURATED_MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
    // A copy of the plan beside the data: the folder says what it was selected by on its own.
    writeInside(tmp, 'training-plan.json', `${JSON.stringify(artifact, null, 2)}\n`);
    throwIfAborted(options.signal);
    renameSync(tmp, out);
    options.onProgress?.({ done: stages.length, total: stages.length, message: 'done' });
    return { dir: out, manifest };
  } catch (error) {
    rmSync(tmp, { recursive: true, force: true });
    throw error;
  }
}

/** The default output folder of a plan: `<data dir>/datasets/curated-<plan id>`, confined to the datasets folder. */
function defaultCuratedDir(dataDir: string, planId: string): string {
  const root = datasetsDir(dataDir);
  mkdirSync(root, { recursive: true });
  return confinePath(root, `curated-${planId}`, { allowMissing: true }).absolute;
}

/**
 * Write a new file of the output folder: its name is confined to the folder (no `..`, no absolute
 * path, no link out) and the file is created, never truncated (`wx`: one that exists is refused).
 */
function writeInside(dir: string, name: string, text: string): void {
  const target = confinePath(dir, name, { allowMissing: true });
  if (target.exists || target.relative !== name) throw new AppError('VALIDATION', `${JSON.stringify(name)} is not a new file name of the output folder; nothing was written outside it.`);
  writeFileSync(target.absolute, text, { flag: 'wx' });
}

/** One DPO preference pair (TRL's conversational form): the prompt, the preferred and the rejected answer. */
export interface PreferencePair {
  prompt: Array<{ role: 'system' | 'user'; content: string }>;
  chosen: Array<{ role: 'assistant'; content: string }>;
  rejected: Array<{ role: 'assistant'; content: string }>;
  meta: { orchestratorRunId: string; sequence: number; outcome: string };
}

/**
 * Preference pairs from plan adjustments (docs/design.md, Training data from solve runs): after a step, the adjustment pass revised
 * the part plan; when the steps after the adjustment succeeded, the adjusted plan is preferred to
 * the plan it revised (the latest part-plan or adjustment answer before it in the same
 * orchestrator run). Adjustments whose run did not succeed give no pair: which plan was better is
 * not known.
 */
export function preferencePairs(sources: LogSources): PreferencePair[] {
  const out: PreferencePair[] = [];
  for (const src of sources.sources) {
    const plans = [...src.analysis.passCalls('part_plan'), ...src.analysis.passCalls('adjustment')].sort((a, b) => a.orchestratorRunId.localeCompare(b.orchestratorRunId) || a.sequence - b.sequence);
    const adjustments = src.analysis.passCalls('adjustment');
    for (const adj of adjustments) {
      if (adj.outcome !== 'success') continue;
      const before = plans.filter((p) => p.orchestratorRunId === adj.orchestratorRunId && p.sequence < adj.sequence).at(-1);
      const original = before?.call.response?.replace(/<think>[\s\S]*?<\/think>/g, '').trim();
      const adjusted = adj.call.response?.replace(/<think>[\s\S]*?<\/think>/g, '').trim();
      if (!original || !adjusted || original === adjusted) continue;
      out.push({
        prompt: [
          { role: 'system', content: adj.call.system ?? '' },
          { role: 'user', content: adj.call.prompt },
        ],
        chosen: [{ role: 'assistant', content: adjusted }],
        rejected: [{ role: 'assistant', content: original }],
        meta: { orchestratorRunId: adj.orchestratorRunId, sequence: adj.sequence, outcome: adj.outcome },
      });
    }
  }
  return out;
}
