import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { EvalTask } from '../../shared/contract/eval';
import { productRetrieval } from '../eval/product';
import { mineTasks, type MineResult } from '../eval/mine';
import { gitText, repositoryRoot, Worktree, worktreesDir } from '../git';
import { KnowledgeBase } from '../kb/knowledgeBase';
import { judgePrompt } from '../retrieval/judgePrompts';
import { describeFile, SCOPE_QUESTION, scopeCandidates, type ScopeOptions } from '../retrieval/stages/scope';
import { analyzeTask } from '../retrieval/taskAnalysis';
import { throwIfAborted } from '../runtime/runs';
import { BootstrapDataset, type ChatExample, type DatasetStage } from './dataset';

/**
 * The precision question of a synthetic pair. The precision stage does not exist yet (issue #13);
 * when it does, its question replaces this one so the pairs match what the judge is asked.
 */
export const PRECISION_QUESTION = 'Is this symbol one that must be changed to carry out the task?';

/** The execute stage's instruction for a synthetic pair (the target is the commit's diff). */
export const EXECUTE_SYSTEM = 'You change code to carry out a coding task. Reply with a unified diff of the files below, and nothing else.';

/** Options of {@link bootstrapDataset}. */
export interface BootstrapOptions {
  repoPath: string;
  /** The dataset folder (default `<dataDir>/datasets/bootstrap-<repo folder name>`). */
  out?: string;
  dataDir: string;
  /** The most recent N qualifying commits (default 50). */
  commits?: number;
  scope?: ScopeOptions;
  signal?: AbortSignal;
  onProgress?(p: { done: number; total: number; message: string }): void;
}

/** What a bootstrap run did. */
export interface BootstrapSummary {
  dir: string;
  /** Qualifying commits mined. */
  mined: number;
  /** Commits done in this run. */
  added: number;
  /** Commits already in the dataset (skipped). */
  skipped: number;
  counts: BootstrapDataset['manifest']['counts'];
  /** What mining saw (for the skip reasons). */
  considered: number;
  skippedByRule: MineResult['skipped'];
  durationMs: number;
}

/** The default dataset folder of a repository. */
export function defaultDatasetDir(dataDir: string, repoRoot: string): string {
  return join(dataDir, 'datasets', `bootstrap-${basename(repoRoot)}`);
}

/**
 * Generate synthetic pipeline pairs from a repository's history: mine qualifying commits as the
 * evaluation does, move one worktree through their parents oldest first (one index updated
 * incrementally), and for each commit write scope pairs (yes for the changed files, no for every
 * other candidate the scope stage's candidate generation brings), precision pairs (yes for the
 * symbols of the changed files whose lines the diff touches, no for the others in those files)
 * and the execute pair (task and files → the diff). Commits already in the dataset are skipped; a
 * cancelled run keeps the commits it finished.
 */
export async function bootstrapDataset(options: BootstrapOptions): Promise<BootstrapSummary> {
  const started = Date.now();
  const root = await repositoryRoot(options.repoPath);
  const dataset = BootstrapDataset.open(options.out ?? defaultDatasetDir(options.dataDir, root), root);
  const mined = await mineTasks({ repoPath: root, commits: options.commits, signal: options.signal });
  const tasks = [...mined.tasks].sort((a, b) => (a.date ?? '').localeCompare(b.date ?? ''));
  const todo = tasks.filter((t) => !dataset.has(t.commit ?? t.id));
  mkdirSync(options.dataDir, { recursive: true });
  // The run's index: updated commit by commit, removed at the end.
  const work = mkdtempSync(join(options.dataDir, 'bootstrap-'));
  const retrieval = productRetrieval();
  let worktree: Worktree | undefined;
  let added = 0;
  try {
    for (const task of todo) {
      throwIfAborted(options.signal);
      options.onProgress?.({ done: tasks.length - todo.length + added, total: tasks.length, message: task.task.split('\n')[0]!.slice(0, 80) });
      if (!worktree) worktree = await Worktree.create({ repo: root, commit: task.parent, root: worktreesDir(options.dataDir), label: 'bootstrap', signal: options.signal });
      else await worktree.checkout(task.parent, options.signal);
      await retrieval.index({ root: worktree.path, stateDir: work, signal: options.signal });
      const pairs = await commitPairs(root, worktree.path, join(work, 'curated.sqlite'), task, options);
      throwIfAborted(options.signal);
      dataset.add({ sha: task.commit ?? task.id, parent: task.parent, task: task.task, gold: task.gold }, pairs);
      added += 1;
    }
    options.onProgress?.({ done: tasks.length, total: tasks.length, message: 'done' });
  } finally {
    await worktree?.remove();
    rmSync(work, { recursive: true, force: true });
  }
  return { dir: dataset.dir, mined: tasks.length, added, skipped: tasks.length - todo.length, counts: dataset.manifest.counts, considered: mined.considered, skippedByRule: mined.skipped, durationMs: Date.now() - started };
}

const chat = (system: string, user: string, answer: string, meta: ChatExample['meta']): ChatExample => ({
  messages: [
    { role: 'system', content: system },
    { role: 'user', content: user },
    { role: 'assistant', content: answer },
  ],
  meta,
});

function judgment(instruct: string, task: string, document: string, label: 'yes' | 'no', meta: Omit<ChatExample['meta'], 'label' | 'source'>): ChatExample {
  const { system, prompt } = judgePrompt('chat', { instruct, query: task, document });
  return chat(system, prompt, label, { source: 'synthetic', label, ...meta });
}

/** The pairs of one commit, read from the index at its parent and the commit's diff. */
async function commitPairs(repo: string, checkout: string, curatedFile: string, task: EvalTask, options: BootstrapOptions): Promise<Record<DatasetStage, ChatExample[]>> {
  const sha = task.commit ?? task.id;
  const gold = new Set(task.gold);
  const kb = KnowledgeBase.open(curatedFile, 'bootstrap');
  try {
    const record = await analyzeTask(task.task, kb, { id: sha });
    // The candidates only: nothing is judged, no model is called.
    const candidates = await scopeCandidates(kb, record, options.scope, options.signal);
    const subjects = new Map(candidates.map((c) => [c.path, { fileId: c.fileId, path: c.path, tier: c.tier }]));
    for (const path of task.gold) {
      const file = kb.getFileByPath(path);
      if (file && !subjects.has(path)) subjects.set(path, { fileId: file.id, path, tier: 0 });
    }
    const scope = [...subjects.values()].map((s) =>
      judgment(SCOPE_QUESTION, record.text, describeFile(kb, s), gold.has(s.path) ? 'yes' : 'no', { commit: sha, subject: s.path, ...(s.tier ? { tier: s.tier } : {}) }),
    );
    const hunks = await changedLines(repo, task.parent, sha, task.gold, options.signal);
    const precision: ChatExample[] = [];
    for (const path of task.gold) {
      const file = kb.getFileByPath(path);
      if (!file) continue;
      const touched = hunks.get(path) ?? [];
      for (const s of kb.getSymbolsForFile(file.id)) {
        const label = touched.some((h) => intersects(h, s)) ? 'yes' : 'no';
        const doc = [`path: ${path}`, `symbol: ${s.qualifiedName} (${s.kind}, lines ${s.startLine}-${s.endLine})`, s.signature ? `signature: ${s.signature}` : '', s.docstring ? `about: ${s.docstring.split('\n')[0]}` : ''].filter(Boolean).join('\n');
        precision.push(judgment(PRECISION_QUESTION, record.text, doc, label, { commit: sha, subject: `${path}:${s.qualifiedName}` }));
      }
    }
    const diff = await gitText(['diff', '--no-color', '--no-ext-diff', task.parent, sha, '--', ...task.gold], { cwd: repo, signal: options.signal });
    const files = task.gold.map((p) => `--- ${p}\n${readText(join(checkout, p))}`).join('\n');
    const execute = [chat(EXECUTE_SYSTEM, `Task:\n${record.text}\n\nFiles:\n${files}`, diff, { source: 'synthetic', commit: sha, subject: task.gold.join(','), label: 'diff' })];
    return { scope, precision, execute };
  } finally {
    kb.close();
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** An old-side hunk: lines `start..end` replaced, or (`end` < `start`) lines inserted after `end`. */
interface Hunk {
  start: number;
  end: number;
}

/** Whether a hunk touches a symbol: a replaced line inside it, or an insertion strictly inside its body. */
export function intersects(h: Hunk, s: { startLine: number; endLine: number }): boolean {
  if (h.end >= h.start) return h.start <= s.endLine && h.end >= s.startLine;
  return s.startLine <= h.end && h.end < s.endLine;
}

/** Old-side line ranges of each file's hunks between the parent and the commit (`git diff -U0`). */
export async function changedLines(repo: string, parent: string, commit: string, paths: string[], signal?: AbortSignal): Promise<Map<string, Hunk[]>> {
  const out = new Map<string, Hunk[]>();
  const text = await gitText(['diff', '-U0', '--no-color', '--no-ext-diff', '--no-renames', parent, commit, '--', ...paths], { cwd: repo, signal });
  let current: Hunk[] | undefined;
  for (const line of text.split('\n')) {
    const file = /^--- (?:a\/(.*)|\/dev\/null)$/.exec(line);
    if (file) {
      current = [];
      if (file[1] !== undefined) out.set(file[1], current);
      continue;
    }
    const hunk = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/.exec(line);
    if (hunk && current) {
      const start = Number(hunk[1]);
      const count = hunk[2] === undefined ? 1 : Number(hunk[2]);
      // A pure insertion reads "-L,0": the new lines go after old line L.
      current.push(count === 0 ? { start: start + 1, end: start } : { start, end: start + count - 1 });
    }
  }
  return out;
}
