import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { EvalTask } from '../../../shared/contract/eval';
import { productRetrieval } from '../eval/product';
import { mineTasks, type MineResult } from '../eval/mine';
import { gitText, repositoryRoot, Worktree } from '../../platform/git';
import { changedLines, diffIdentifiers, touches } from '../../platform/git/diffHunks';
import { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';
import { implementPrompt, partPlanText, SOLVE_SYSTEM } from '../../features/plans';
import { judgePrompt, buildPackage, renderMarkdown, type ContextFile, type ContextSymbol, describeSymbol, PRECISION_QUESTIONS, symbolCandidates, type SymbolCandidate, describeFile, SCOPE_DEFAULTS, SCOPE_QUESTION, scopeCandidates, type ScopeOptions, analyzeTask } from '../../features/retrieval';
import { throwIfAborted } from '../../platform/runtime/runs';
import { BootstrapDataset, type ChatExample, type DatasetStage } from './dataset';
import { bootstrapScratchPrefix, defaultDatasetDir, worktreesDir } from '../../platform/layout';

/** Options of {@link bootstrapDataset}. */
export interface BootstrapOptions {
  repoPath: string;
  /** The dataset folder (default `<dataDir>/datasets/bootstrap-<repo folder name>`). */
  out?: string;
  /** Start a new dataset in `out` even when it holds something else (its dataset files are replaced). */
  force?: boolean;
  dataDir: string;
  /** The most recent N qualifying commits (default 50). */
  commits?: number;
  scope?: ScopeOptions;
  /** The context package's budget in an execute pair (default 24000 tokens). */
  executeBudgetTokens?: number;
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

/**
 * Generate synthetic pipeline pairs from a repository's history: mine qualifying commits as the
 * evaluation does, move one worktree through their parents oldest first (one index updated
 * incrementally), and for each commit write the pairs {@link commitPairs} describes. Commits already in the dataset are skipped; a
 * cancelled run keeps the commits it finished.
 */
export async function bootstrapDataset(options: BootstrapOptions): Promise<BootstrapSummary> {
  const started = Date.now();
  const root = await repositoryRoot(options.repoPath);
  const dataset = BootstrapDataset.open(options.out ?? defaultDatasetDir(options.dataDir, root), root, { force: options.force === true });
  const mined = await mineTasks({ repoPath: root, commits: options.commits, signal: options.signal });
  const tasks = [...mined.tasks].sort((a, b) => (a.date ?? '').localeCompare(b.date ?? ''));
  const todo = tasks.filter((t) => !dataset.has(t.commit ?? t.id));
  mkdirSync(options.dataDir, { recursive: true });
  // The run's index: updated commit by commit, removed at the end.
  const work = mkdtempSync(bootstrapScratchPrefix(options.dataDir));
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
      const { pairs, neighbours } = await commitPairs(root, worktree.path, join(work, 'curated.sqlite'), task, options);
      throwIfAborted(options.signal);
      dataset.add({ sha: task.commit ?? task.id, parent: task.parent, task: task.task, gold: task.gold, neighbours }, pairs);
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

/** A neighbour file that the diff uses, and the names of it that it uses. */
interface NeededNeighbour {
  fileId: number;
  path: string;
  names: string[];
}

/** Files that only gather names from others: a package's `__init__.py`, a folder's `index.*`. */
const HUB = /(^|\/)(__init__\.py|index\.(?:[cm]?[jt]sx?))$/;

/**
 * The needed neighbours of a commit, read from the index at the parent: files a changed file
 * imports that define a top-level name an added or removed line of the diff uses. An import of a
 * hub (a package's `__init__.py`, an `index.ts`) is followed through the hub's own imports (up to
 * three hubs deep) for the names the changed file imports by name (`from pkg import discount`,
 * `import { discount } from './pkg'`) and the diff uses bare, so a re-exported name leads to the
 * file that defines it; a name reached only through a module alias (`nx.nodes`) or a local that
 * happens to share a name is not followed. An import the diff does not touch is not needed.
 */
export function neededNeighbours(kb: KnowledgeBase, gold: readonly string[], identifiers: ReadonlySet<string>, throughHubs: (path: string) => ReadonlySet<string> = () => new Set()): NeededNeighbour[] {
  const out = new Map<number, NeededNeighbour>();
  const changed = new Set(gold);
  const visit = (fileId: number, path: string, names: ReadonlySet<string>, hubNames: ReadonlySet<string>, depth: number, seen: Set<number>) => {
    if (seen.has(fileId) || changed.has(path)) return;
    seen.add(fileId);
    const used = kb.getSymbolsForFile(fileId).filter((s) => s.parentId === null && names.has(s.name)).map((s) => s.name);
    if (used.length) {
      const n = out.get(fileId) ?? { fileId, path, names: [] };
      n.names = [...new Set([...n.names, ...used])];
      out.set(fileId, n);
    }
    if (hubNames.size && HUB.test(path) && depth < 3) for (const dep of kb.getDependencies(fileId, 'outgoing')) visit(dep.fileId, dep.path, hubNames, hubNames, depth + 1, seen);
  };
  for (const path of gold) {
    const file = kb.getFileByPath(path);
    if (!file) continue;
    const seen = new Set<number>();
    const hubNames = throughHubs(path);
    for (const dep of kb.getDependencies(file.id, 'outgoing')) visit(dep.fileId, dep.path, identifiers, hubNames, 0, seen);
  }
  return [...out.values()].sort((a, b) => a.path.localeCompare(b.path));
}

/**
 * The names a source file imports by name: Python `from m import a, b as c` (parenthesised lists
 * too) and JS/TS `import { a, b as c } from …` / `import D from …`; both the imported and the
 * local name of an alias.
 */
export function namesImportedByName(source: string): Set<string> {
  const out = new Set<string>();
  const add = (list: string) => {
    for (const part of list.split(',')) for (const w of part.replace(/\btype\b/g, ' ').split(/\s+as\s+|\s+/)) if (/^[A-Za-z_$][\w$]*$/.test(w) && w !== 'import') out.add(w);
  };
  for (const m of source.matchAll(/^[ \t]*from[ \t]+[\w.]+[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)/gm)) add(m[1]!.replace(/[()\\]/g, ' ').replace(/#[^\n]*/g, ''));
  for (const m of source.matchAll(/\bimport[ \t]+(?:type[ \t]+)?(?:([A-Za-z_$][\w$]*)[ \t]*,?[ \t]*)?(?:\{([^}]*)\})?[ \t]*from[ \t]+['"]/g)) {
    if (m[1]) out.add(m[1]);
    if (m[2]) add(m[2]);
  }
  return out;
}

/**
 * The pairs of one commit, read from the index at its parent and the commit's diff, asked as the
 * pipeline asks them (the judge's prompt, the stage's question, the item as the stage describes it):
 * scope — every candidate the scope stage brings (plus any changed file it missed): yes for the
 * changed files and their needed neighbours, no for the rest; precision pass 1 — the symbols of
 * those files the stage would judge (a symbol the task names skips pass 1, as in the stage): yes
 * for symbols the diff touches and the neighbours' symbols it uses; pass 2 — the relevant ones:
 * yes for the touched symbols (primary), no for the used ones. Pass 3 (full source or signature)
 * has no answer in a diff and gets no pairs. Execute: the task and the context package (touched
 * symbols primary, used ones supporting) → the diff.
 */
async function commitPairs(repo: string, checkout: string, curatedFile: string, task: EvalTask, options: BootstrapOptions): Promise<{ pairs: Record<DatasetStage, ChatExample[]>; neighbours: string[] }> {
  const sha = task.commit ?? task.id;
  const gold = new Set(task.gold);
  const kb = KnowledgeBase.open(curatedFile, 'bootstrap');
  try {
    const record = await analyzeTask(task.task, kb, { id: sha });
    const diff = await gitText(['diff', '--no-color', '--no-ext-diff', task.parent, sha, '--', ...task.gold], { cwd: repo, signal: options.signal });
    const ids = diffIdentifiers(diff);
    const needed = neededNeighbours(kb, task.gold, ids.all, (path) => {
      const imported = namesImportedByName(readText(join(checkout, path)) ?? '');
      return new Set([...ids.bare].filter((n) => imported.has(n)));
    });
    const neededPaths = new Set(needed.map((n) => n.path));
    // The candidates only: nothing is judged, no model is called.
    const all = await scopeCandidates(kb, record, options.scope, options.signal);
    const cap = Math.max(options.scope?.maxCandidates ?? SCOPE_DEFAULTS.maxCandidates, all.filter((c) => c.tier === 1).length);
    const subjects = new Map(all.slice(0, cap).map((c) => [c.path, { fileId: c.fileId, path: c.path, tier: c.tier, relation: c.relation }]));
    for (const path of [...task.gold, ...neededPaths]) {
      const file = kb.getFileByPath(path);
      if (file && !subjects.has(path)) subjects.set(path, { fileId: file.id, path, tier: 0, relation: { kind: 'named-in-task', detail: { text: path } } });
    }
    const scope = [...subjects.values()].map((s) => {
      const label = gold.has(s.path) || neededPaths.has(s.path) ? 'yes' : 'no';
      const reason = gold.has(s.path) ? 'changed' : neededPaths.has(s.path) ? 'needed-neighbour' : 'other-candidate';
      return judgment(SCOPE_QUESTION, record.text, describeFile(kb, s), label, { commit: sha, subject: s.path, reason, ...(s.tier ? { tier: s.tier } : {}) });
    });

    const hunks = await changedLines(repo, task.parent, sha, task.gold, options.signal);
    const files: ContextFile[] = [...task.gold, ...neededPaths].flatMap((path) => {
      const s = subjects.get(path);
      return s ? [{ fileId: s.fileId, path, tier: Math.max(1, s.tier), reasons: [s.relation] }] : [];
    });
    const usedNames = new Map(needed.map((n) => [n.path, new Set(n.names)]));
    const candidates = symbolCandidates(kb, record, files);
    const rationale = new Map<number, string[]>();
    for (const f of files) for (const r of kb.getRationaleComments(f.fileId)) if (r.symbolId !== null) rationale.set(r.symbolId, [...(rationale.get(r.symbolId) ?? []), `${r.tag}: ${r.text}`]);
    const roleOf = (c: SymbolCandidate): 'primary' | 'supporting' | null => {
      const s = c.symbol;
      if (gold.has(s.path)) return (hunks.get(s.path) ?? []).some((h) => touches(h, s)) ? 'primary' : null;
      return s.parentId === null && usedNames.get(s.path)?.has(s.name) ? 'supporting' : null;
    };
    const pass1: ChatExample[] = [];
    const pass2: ChatExample[] = [];
    const kept = new Map<number, ContextSymbol[]>();
    for (const c of candidates) {
      const role = roleOf(c);
      const doc = describeSymbol(kb, c, rationale);
      const subject = `${c.symbol.path}:${c.symbol.qualifiedName}`;
      const meta = { commit: sha, subject, reason: role ?? 'untouched' };
      if (!c.named) pass1.push(judgment(PRECISION_QUESTIONS.precision_pass1, record.text, doc, role ? 'yes' : 'no', meta));
      if (c.named || role) pass2.push(judgment(PRECISION_QUESTIONS.precision_pass2, record.text, doc, role === 'primary' ? 'yes' : 'no', meta));
      if (role) {
        const s = c.symbol;
        const list = kept.get(c.file.fileId) ?? [];
        list.push({ symbolId: s.id, name: s.name, qualifiedName: s.qualifiedName, kind: s.kind, signature: s.signature || s.name, startLine: s.startLine, endLine: s.endLine, parentId: s.parentId, role, reasons: c.found });
        kept.set(c.file.fileId, list);
      }
    }

    const pkg = buildPackage({
      task: { id: sha, text: record.text },
      files: files.map((f) => ({ ...f, symbols: kept.get(f.fileId) ?? [] })),
      budgetTokens: options.executeBudgetTokens ?? 24_000,
      readSource: (path) => readText(join(checkout, path)),
      kb,
    });
    const execute = [executeExample(record.text, task.gold, renderMarkdown(pkg), diff, { source: 'synthetic', commit: sha, subject: task.gold.join(','), label: 'diff' })];
    return { pairs: { scope, precision_pass1: pass1, precision_pass2: pass2, execute }, neighbours: [...neededPaths] };
  } finally {
    kb.close();
  }
}

/**
 * An execute pair asks what solve's implement pass sends (its system prompt and its prompt, from
 * solvePasses.ts) for a one-part plan whose one step is the commit's task: no earlier changes, the
 * context package as the files. The answer is the commit's diff, a unified diff the pass reads.
 */
export function executeExample(task: string, gold: readonly string[], contextMarkdown: string, diff: string, meta: ChatExample['meta']): ChatExample {
  const title = task.split('\n')[0]!.slice(0, 200);
  const step = { id: 's1', description: task.slice(0, 2000), files: [...gold], expected_outcome: '' };
  const planText = partPlanText({ id: 'p1', title, description: task }, [step], step.id);
  return chat(SOLVE_SYSTEM.implement, implementPrompt({ task, step, planText, cumulativeDiff: '', context: contextMarkdown }), diff, meta);
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}
