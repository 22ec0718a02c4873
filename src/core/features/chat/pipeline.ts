import { existsSync, lstatSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type * as Yaml from 'yaml';
import { z } from 'zod';
import type { ChatIntent } from '../../../shared/contract/chat';
import { PARSE_ONCE } from '../../../shared/contract/define';
import { writeFileAtomic } from '../../platform/config/configFile';
import { readConfinedFile } from '../../platform/fs/confine';
import { nodeCrypto } from '../../platform/nodeModules';
import { packageRoot } from '../../platform/paths';
import { repoFolder } from './repoFolder';

/*
 * Chat pipelines as YAML step graphs (docs/design.md, Chat pipelines). A pipeline has settings
 * and steps; each step names an action and, per outcome of that action, the next step (`on_<outcome>`,
 * else `next`). `extends` names a parent: settings are deep-merged (the child wins), steps are merged
 * by id (the child's step replaces the parent's), and execution starts at `settings.entry_step_id`.
 * After the merge a pipeline is checked: the entry step exists, every transition names a step, every
 * outcome of every action has a transition; unreachable steps are warnings with file and line.
 * A pipeline that fails is refused with the reason; the others (the built-in default first) still work.
 */

/** Actions a step may name, with the outcomes each can end in (`finalize` ends the turn). */
export const PIPELINE_ACTIONS = {
  translate_in_if_needed: ['ok'],
  load_conversation_history: ['ok'],
  route_question: ['retrieve', 'direct'],
  fetch_more_context: ['ok'],
  expand_dependency_tree: ['ok'],
  fetch_node_texts: ['ok'],
  check_context_budget: ['ok', 'over_limit'],
  summarize_context: ['ok'],
  trim_context: ['ok'],
  answer: ['answer', 'request'],
  loop_guard: ['ok', 'exceeded'],
  finalize_missing: ['ok'],
  finalize: [],
} as const satisfies Record<string, readonly string[]>;

/** An action of a step. */
export type PipelineAction = keyof typeof PIPELINE_ACTIONS;

/** The edge kinds graph expansion may follow. */
export const EDGE_KINDS = ['calls', 'called-by', 'imports', 'imported-by', 'co-change'] as const;
/** An edge kind of graph expansion. */
export type EdgeKind = (typeof EDGE_KINDS)[number];

const intentPlan = z.strictObject({
  seeds: z.number().int().min(1).max(100).optional(),
  depth: z.number().int().min(0).max(5).optional(),
  decay: z.number().gt(0).max(1).optional(),
  max_nodes: z.number().int().min(1).max(200).optional(),
  edges: z.array(z.enum(EDGE_KINDS)).optional(),
});

/** The settings of a merged pipeline (YAML spelling). */
export const pipelineSettingsSchema = z.strictObject({
  entry_step_id: z.string().min(1),
  repository: z.string().optional(),
  active_index: z.string().optional(),
  model_language: z.string().min(2).default('en'),
  max_context_tokens: z.number().int().min(20).max(1_000_000).default(4000),
  max_history_tokens: z.number().int().min(20).max(1_000_000).default(1500),
  max_turn_loops: z.number().int().min(0).max(10).default(2),
  retrieval: z
    .strictObject({
      /** `keyword` as in search; `bm25`, its old name, is still accepted (for one release). */
      mode: z.enum(['auto', 'keyword', 'bm25', 'semantic', 'semantic_rerank', 'hybrid']).default('auto'),
      fusion: z.enum(['rrf', 'dist']).default('rrf'),
      weights: z.tuple([z.number().min(0), z.number().min(0)]).default([0.5, 0.5]),
      widen: z.number().int().min(1).max(1000).default(50),
      query_expansion: z.number().int().min(0).max(5).default(0),
      /** Re-rank the fused pool before it becomes graph seeds (rerank.ts); off by default. */
      rerank: z
        .strictObject({
          enabled: z.boolean().default(false),
          style: z.enum(['batch', 'per_item']).default('batch'),
          /** Candidates of the fused pool re-ranked (at least the intent's seeds are searched). */
          pool: z.number().int().min(2).max(50).default(20),
        })
        .prefault({}),
    })
    .prefault({}),
  graph: z
    .strictObject({
      edge_allowlist: z.array(z.enum(EDGE_KINDS)).default([...EDGE_KINDS]),
      /** Caps over the intent's plan (absent: the intent decides). */
      max_depth: z.number().int().min(0).max(5).optional(),
      max_nodes: z.number().int().min(1).max(200).optional(),
      intents: z.partialRecord(z.enum(['SUMMARY', 'SEARCH', 'FLOW', 'DATA_LIFECYCLE', 'MIGRATION', 'EXPLAIN', 'IMPACT'] satisfies ChatIntent[]), intentPlan).default({}),
    })
    .prefault({}),
  node_text_fetch_top_n: z.number().int().min(1).max(100).default(12),
  /**
   * Files past the bodies go as excerpts while the evidence fits max_context_tokens (evidencePack.ts):
   * `lines` around the line that matters (0: bodies only); bodies take at most `body_share` of the
   * budget; the files are the nodes past the bodies, then `extra_hits` search hits past the seeds and
   * `extra_neighbours` neighbours the node cap left out.
   */
  excerpts: z
    .strictObject({
      lines: z.number().int().min(0).max(40).default(0),
      body_share: z.number().gt(0).max(1).default(1),
      extra_hits: z.number().int().min(0).max(100).default(0),
      extra_neighbours: z.number().int().min(0).max(100).default(0),
    })
    .prefault({}),
  /** Summaries of the summary tree (RAPTOR) sent ahead of the evidence: at most top_k, similarity ≥ min_score (top_k 0: none). */
  summaries: z
    .strictObject({
      top_k: z.number().int().min(0).max(20).default(3),
      min_score: z.number().min(-1).max(1).default(0.3),
    })
    .prefault({}),
});

/** Pipeline settings after the merge and the defaults. */
export type PipelineSettings = z.infer<typeof pipelineSettingsSchema>;

/** One step of a merged pipeline, with where it was written. */
export interface PipelineStep {
  id: string;
  action: PipelineAction;
  /** Outcome → next step id (`next` stored as `*`). */
  transitions: Record<string, string>;
  file: string;
  line: number;
}

/** A pipeline that loaded and passed validation. */
export interface ChatPipeline {
  name: string;
  /** The file that defined it (the child's, for an extended pipeline). */
  file: string;
  /** Names from the root parent to this one. */
  lineage: string[];
  settings: PipelineSettings;
  steps: Map<string, PipelineStep>;
  /** Unreachable steps and the like: reported, not fatal. */
  warnings: string[];
}

/** A pipeline file or definition that was refused, and why. */
export interface PipelineProblem {
  name?: string;
  file: string;
  line?: number;
  message: string;
}

/** What loading found: the usable pipelines by name, and the refused ones. */
export interface PipelineSet {
  pipelines: Map<string, ChatPipeline>;
  problems: PipelineProblem[];
}

/** Where repositories keep their own pipelines. */
export const REPO_PIPELINE_DIR = '.cleanroom/pipelines';
/** The pipeline a turn uses when none is named. */
export const DEFAULT_PIPELINE = 'default';
const MAX_PIPELINE_BYTES = 256 * 1024;

/** One parsed file: its raw definition and how to find lines in it. */
interface RawPipeline {
  name: string;
  extendsName?: string;
  settings: Record<string, unknown>;
  steps: Array<{ raw: Record<string, unknown>; line: number }>;
  file: string;
  lineOf(path: ReadonlyArray<string | number>): number | undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deep merge of plain objects: the child's value wins; nested objects merge; arrays are replaced. */
export function deepMerge(parent: Record<string, unknown>, child: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...parent };
  for (const [key, value] of Object.entries(child)) {
    const base = out[key];
    out[key] = isPlainObject(base) && isPlainObject(value) ? deepMerge(base, value) : value;
  }
  return out;
}

class ProblemError extends Error {
  constructor(readonly problem: PipelineProblem) {
    super(problem.message);
  }
}

/** The kind of a YAML node, as {@link parsePipelineText} checks it. */
type YamlKind = 'map' | 'seq' | 'scalar' | 'alias';

/**
 * A YAML document as {@link parsePipelineText} reads it: its value (`toJS`) and, for each node a path
 * of map keys and list indexes reaches (`Document.getIn(path, true)`), its first line and its kind,
 * keyed by the path as JSON. Plain data, so it can be kept on disk ({@link outlineCached}).
 */
interface YamlOutline {
  root: unknown;
  nodes: Record<string, [line: number | null, kind: YamlKind]>;
}

/** Parse `text` as YAML into its outline; a syntax error throws {@link ProblemError}. */
function outlineOf(text: string, file: string): YamlOutline {
  // Loaded on first use (260 kB): a command that reads no pipeline file never compiles it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument } = require('yaml') as typeof Yaml;
  const lineCounter = new LineCounter();
  const doc: Yaml.Document = parseDocument(text, { lineCounter, prettyErrors: false });
  const firstError = doc.errors[0];
  if (firstError) throw new ProblemError({ file, line: lineCounter.linePos(firstError.pos[0]).line, message: `not valid YAML: ${firstError.message.split('\n')[0]}` });
  const nodes: YamlOutline['nodes'] = {};
  const visit = (node: unknown, path: Array<string | number | boolean | null>) => {
    const kind: YamlKind | undefined = isMap(node) ? 'map' : isSeq(node) ? 'seq' : isAlias(node) ? 'alias' : isScalar(node) ? 'scalar' : undefined;
    if (kind === undefined) return;
    const range = (node as { range?: [number, number, number] }).range;
    const key = JSON.stringify(path);
    // getIn finds the first pair with a key (keys are unique unless the YAML is refused above).
    if (!(key in nodes)) nodes[key] = [range ? lineCounter.linePos(range[0]).line : null, kind];
    if (isMap(node)) {
      for (const pair of node.items) {
        if (!isPair(pair) || !isScalar(pair.key)) continue;
        const k = pair.key.value;
        if (typeof k === 'string' || typeof k === 'number' || typeof k === 'boolean' || k === null) visit(pair.value, [...path, k]);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => visit(item, [...path, i]));
    }
  };
  visit(doc.contents, []);
  return { root: doc.toJS() as unknown, nodes };
}

/** Bumped when {@link YamlOutline} or what fills it changes: an outline kept by another version is parsed again. */
const OUTLINE_VERSION = 1;

/**
 * {@link outlineOf}, kept in `cacheDir` (one JSON file per text, with the text itself, checked on
 * read): the `yaml` package's first parse in a process costs ~5 ms, and `cra chat` pays it on every
 * turn before its sources. Text that is not valid YAML is never kept (its problem is found again). A
 * cache that cannot be read or written is ignored.
 */
function outlineCached(text: string, file: string, cacheDir: string | undefined): YamlOutline {
  if (cacheDir === undefined) return outlineOf(text, file);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const yamlVersion = (require('yaml/package.json') as { version: string }).version;
  const path = join(cacheDir, `pipeline-${nodeCrypto().createHash('sha1').update(text).digest('hex').slice(0, 20)}.json`);
  try {
    const kept = JSON.parse(readFileSync(path, 'utf8')) as { version: number; yaml: string; text: string; outline: YamlOutline };
    if (kept.version === OUTLINE_VERSION && kept.yaml === yamlVersion && kept.text === text) return kept.outline;
  } catch {
    // Not kept yet, or unreadable: parsed below.
  }
  const outline = outlineOf(text, file);
  const json = JSON.stringify({ version: OUTLINE_VERSION, yaml: yamlVersion, text, outline });
  // A value JSON cannot hold (.inf, .nan, -0) would come back as another: such a text is not kept.
  if (!isDeepStrictEqual((JSON.parse(json) as { outline: YamlOutline }).outline, outline)) return outline;
  try {
    writeFileAtomic(path, json);
    pruneOutlines(cacheDir);
  } catch {
    // A folder that cannot be written: the outline is parsed again next time.
  }
  return outline;
}

/** Outlines kept at most: each edit of a pipeline file keeps a new one (a few kB). */
const OUTLINES_KEPT = 64;

/** Remove the oldest kept outlines beyond {@link OUTLINES_KEPT} (by modification time). */
function pruneOutlines(cacheDir: string): void {
  const kept = readdirSync(cacheDir).filter((name) => /^pipeline-[0-9a-f]+\.json$/.test(name));
  if (kept.length <= OUTLINES_KEPT) return;
  const byAge = kept.map((name) => ({ name, at: lstatSync(join(cacheDir, name), { throwIfNoEntry: false })?.mtimeMs ?? 0 })).sort((a, b) => a.at - b.at);
  for (const { name } of byAge.slice(0, kept.length - OUTLINES_KEPT)) rmSync(join(cacheDir, name), { force: true });
}

/**
 * Parse one pipeline file; a problem throws {@link ProblemError}. `cacheDir`: where the YAML's
 * outline is kept between processes ({@link outlineCached}); none: parsed every time.
 */
export function parsePipelineText(text: string, file: string, cacheDir?: string): RawPipeline {
  const outline = outlineCached(text, file, cacheDir);
  const nodeAt = (path: ReadonlyArray<string | number>) => outline.nodes[JSON.stringify(path)];
  const lineOf = (path: ReadonlyArray<string | number>): number | undefined => nodeAt(path)?.[0] ?? undefined;
  const root = outline.root;
  const pipeline = isPlainObject(root) ? root.pipeline : undefined;
  if (!isPlainObject(pipeline)) throw new ProblemError({ file, line: 1, message: 'the file has no `pipeline:` mapping at its top' });
  const name = pipeline.name;
  if (typeof name !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(name)) {
    throw new ProblemError({ file, line: lineOf(['pipeline', 'name']) ?? lineOf(['pipeline']), message: '`pipeline.name` must be 1–64 letters, digits, _ . or -' });
  }
  const extendsName = pipeline.extends;
  if (extendsName !== undefined && typeof extendsName !== 'string') throw new ProblemError({ name, file, line: lineOf(['pipeline', 'extends']), message: '`extends` must be the name of another pipeline' });
  const settings = pipeline.settings ?? {};
  if (!isPlainObject(settings)) throw new ProblemError({ name, file, line: lineOf(['pipeline', 'settings']), message: '`settings` must be a mapping' });
  const stepsNode = nodeAt(['pipeline', 'steps']);
  const rawSteps = pipeline.steps ?? [];
  if (!Array.isArray(rawSteps) || (stepsNode !== undefined && stepsNode[1] !== 'seq')) throw new ProblemError({ name, file, line: lineOf(['pipeline', 'steps']), message: '`steps` must be a list of steps' });
  const steps = rawSteps.map((raw: unknown, i) => {
    const line = lineOf(['pipeline', 'steps', i]) ?? 1;
    if (!isPlainObject(raw) || nodeAt(['pipeline', 'steps', i])?.[1] !== 'map') throw new ProblemError({ name, file, line, message: 'a step must be a mapping with `id` and `action`' });
    return { raw, line };
  });
  return { name, ...(extendsName !== undefined ? { extendsName } : {}), settings, steps, file, lineOf };
}

function toStep(raw: Record<string, unknown>, line: number, file: string, pipeline: string): PipelineStep {
  const { id, action, next, ...rest } = raw;
  const fail = (message: string) => {
    throw new ProblemError({ name: pipeline, file, line, message });
  };
  if (typeof id !== 'string' || id === '') fail('a step needs an `id`');
  const stepId = id as string;
  if (typeof action !== 'string' || !(action in PIPELINE_ACTIONS)) fail(`step "${stepId}": unknown action ${JSON.stringify(action)}; use one of ${Object.keys(PIPELINE_ACTIONS).join(', ')}`);
  const transitions: Record<string, string> = {};
  if (next !== undefined) {
    if (typeof next !== 'string') fail(`step "${stepId}": \`next\` must be a step id`);
    transitions['*'] = next as string;
  }
  const outcomes = PIPELINE_ACTIONS[action as PipelineAction] as readonly string[];
  for (const [key, value] of Object.entries(rest)) {
    const outcome = /^on_(.+)$/.exec(key)?.[1];
    if (!outcome) fail(`step "${stepId}": unknown key \`${key}\`; a step has id, action, next and on_<outcome>`);
    if (!outcomes.includes(outcome as string)) fail(`step "${stepId}": action ${action as string} has no outcome "${outcome as string}" (it has: ${outcomes.join(', ') || 'none, it ends the turn'})`);
    if (typeof value !== 'string') fail(`step "${stepId}": \`${key}\` must be a step id`);
    transitions[outcome as string] = value as string;
  }
  return { id: stepId, action: action as PipelineAction, transitions, file, line };
}

/** The step an outcome leads to, or undefined at the end of the turn. */
export function nextStep(step: PipelineStep, outcome: string): string | undefined {
  return step.transitions[outcome] ?? step.transitions['*'];
}

/** Merge a pipeline over its resolved parent and validate the result. */
function resolve(raw: RawPipeline, parent: ChatPipeline | undefined, rawSettings: Record<string, unknown>): { pipeline: ChatPipeline; settings: Record<string, unknown> } {
  const steps = new Map<string, PipelineStep>(parent?.steps ?? []);
  const seen = new Set<string>();
  for (const { raw: step, line } of raw.steps) {
    const parsed = toStep(step, line, raw.file, raw.name);
    if (seen.has(parsed.id)) throw new ProblemError({ name: raw.name, file: raw.file, line, message: `step id "${parsed.id}" is defined twice in this file` });
    seen.add(parsed.id);
    steps.set(parsed.id, parsed);
  }
  const merged = deepMerge(rawSettings, raw.settings);
  const checked = pipelineSettingsSchema.safeParse(merged, PARSE_ONCE);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
    const where = path.length ? `settings.${path.join('.')}` : 'settings';
    const line = raw.lineOf(['pipeline', 'settings', ...path]) ?? raw.lineOf(['pipeline', 'settings']) ?? raw.lineOf(['pipeline']);
    throw new ProblemError({ name: raw.name, file: raw.file, ...(line ? { line } : {}), message: `${where}: ${issue.message}` });
  }
  const settings = checked.data;
  const entry = steps.get(settings.entry_step_id);
  if (!entry) {
    throw new ProblemError({ name: raw.name, file: raw.file, line: raw.lineOf(['pipeline', 'settings', 'entry_step_id']) ?? raw.lineOf(['pipeline']), message: `settings.entry_step_id "${settings.entry_step_id}" is not a step of this pipeline` });
  }
  for (const step of steps.values()) {
    for (const target of Object.values(step.transitions)) {
      if (!steps.has(target)) throw new ProblemError({ name: raw.name, file: step.file, line: step.line, message: `step "${step.id}" goes to "${target}", which is not a step of this pipeline` });
    }
    for (const outcome of PIPELINE_ACTIONS[step.action]) {
      if (!nextStep(step, outcome)) throw new ProblemError({ name: raw.name, file: step.file, line: step.line, message: `step "${step.id}" (${step.action}) has no transition for outcome "${outcome}": add on_${outcome} or next` });
    }
  }
  const reachable = new Set<string>([entry.id]);
  const queue = [entry];
  while (queue.length) {
    for (const target of Object.values(queue.shift()!.transitions)) {
      if (reachable.has(target)) continue;
      reachable.add(target);
      queue.push(steps.get(target)!);
    }
  }
  const warnings = [...steps.values()].filter((s) => !reachable.has(s.id)).map((s) => `${s.file}:${s.line}: step "${s.id}" is unreachable from entry step "${entry.id}"`);
  const lineage = [...(parent?.lineage ?? []), raw.name];
  return { pipeline: { name: raw.name, file: raw.file, lineage, settings, steps, warnings }, settings: merged };
}

/**
 * Build pipelines from parsed files: parents first, refusing cycles, unknown parents and duplicate
 * names. A refusal for an unknown parent lists the pipelines that could be extended instead: the
 * usable ones, known only once every file is built (never the refused pipeline itself, nor another
 * refused one).
 */
export function buildPipelines(raws: readonly RawPipeline[], problems: PipelineProblem[] = []): PipelineSet {
  const unknownParents: PipelineProblem[] = [];
  const byName = new Map<string, RawPipeline>();
  for (const raw of raws) {
    const known = byName.get(raw.name);
    if (known) problems.push({ name: raw.name, file: raw.file, line: raw.lineOf(['pipeline', 'name']), message: `pipeline "${raw.name}" is already defined in ${known.file}; give this one another name (it may extend that one)` });
    else byName.set(raw.name, raw);
  }
  const done = new Map<string, { pipeline: ChatPipeline; settings: Record<string, unknown> } | null>();
  const build = (name: string, chain: string[]): { pipeline: ChatPipeline; settings: Record<string, unknown> } | null => {
    if (done.has(name)) return done.get(name)!;
    const raw = byName.get(name)!;
    let parent: { pipeline: ChatPipeline; settings: Record<string, unknown> } | null = null;
    try {
      if (raw.extendsName !== undefined) {
        if (chain.includes(raw.extendsName) || raw.extendsName === name) throw new ProblemError({ name, file: raw.file, line: raw.lineOf(['pipeline', 'extends']), message: `extends forms a cycle: ${[...chain, name, raw.extendsName].join(' → ')}` });
        if (!byName.has(raw.extendsName)) {
          const problem = { name, file: raw.file, line: raw.lineOf(['pipeline', 'extends']), message: `extends "${raw.extendsName}", which is not a known pipeline` };
          unknownParents.push(problem);
          throw new ProblemError(problem);
        }
        parent = build(raw.extendsName, [...chain, name]);
        if (!parent) throw new ProblemError({ name, file: raw.file, line: raw.lineOf(['pipeline', 'extends']), message: `extends "${raw.extendsName}", which was refused (see its own problem)` });
      }
      const result = resolve(raw, parent?.pipeline, parent?.settings ?? {});
      done.set(name, result);
      return result;
    } catch (error) {
      if (!(error instanceof ProblemError)) throw error;
      if (!problems.some((p) => p.message === error.problem.message && p.file === error.problem.file)) problems.push(error.problem);
      done.set(name, null);
      return null;
    }
  };
  const pipelines = new Map<string, ChatPipeline>();
  for (const name of byName.keys()) {
    const built = build(name, []);
    if (built) pipelines.set(name, built.pipeline);
  }
  const extendable = pipelines.size ? `known: ${[...pipelines.keys()].join(', ')}` : 'no pipeline could be loaded';
  for (const problem of unknownParents) problem.message += ` (${extendable})`;
  return { pipelines, problems };
}

/** The folder of the built-in pipelines. */
export function builtinPipelineDir(): string {
  return join(packageRoot(), 'resources', 'pipelines');
}

/** Loaded sets by the files they came from (name, size, mtime, inode): parsing and validating YAML costs ~20 ms a turn. */
const loaded = new Map<string, PipelineSet>();
const LOADED_MAX = 32;

function signature(dir: string): string {
  return yamlFiles(dir)
    .map((name) => {
      const s = lstatSync(join(dir, name), { throwIfNoEntry: false });
      return s ? `${name}:${s.size}:${s.mtimeMs}:${s.ino}` : name;
    })
    .join('|');
}

/**
 * Load the built-in pipelines and, when a repository root is given, its `.cleanroom/pipelines/*.yaml`
 * (read confined to the repository). Problems are collected, never thrown. A set is reused while
 * none of its files changed (the result is shared: treat it as read-only). `cacheDir`: where the
 * files' parsed YAML is kept between processes (see `outlineCached`).
 */
export function loadPipelines(options: { builtinDir?: string; repoRoot?: string; cacheDir?: string } = {}): PipelineSet {
  const builtinDir = options.builtinDir ?? builtinPipelineDir();
  // A linked folder is not listed, not even for the key: its problem is the same until it changes.
  const repoDir = options.repoRoot ? repoFolder(options.repoRoot, REPO_PIPELINE_DIR, 'pipelines') : {};
  const key = `${builtinDir}\0${signature(builtinDir)}\0${options.repoRoot ?? ''}\0${repoDir.dir ? signature(repoDir.dir) : (repoDir.problem?.message ?? '')}`;
  const known = loaded.get(key);
  if (known) return known;
  const set = readPipelines(builtinDir, options.repoRoot, options.cacheDir);
  if (loaded.size >= LOADED_MAX) loaded.delete(loaded.keys().next().value as string);
  loaded.set(key, set);
  return set;
}

function readPipelines(builtinDir: string, repoRoot: string | undefined, cacheDir: string | undefined): PipelineSet {
  const problems: PipelineProblem[] = [];
  const raws: RawPipeline[] = [];
  const parse = (text: string, file: string) => {
    try {
      raws.push(parsePipelineText(text, file, cacheDir));
    } catch (error) {
      if (!(error instanceof ProblemError)) throw error;
      problems.push(error.problem);
    }
  };
  for (const name of yamlFiles(builtinDir)) parse(readFileSync(join(builtinDir, name), 'utf8'), join('resources', 'pipelines', name));
  const repoDir = repoRoot ? repoFolder(repoRoot, REPO_PIPELINE_DIR, 'pipelines') : {};
  if (repoDir.problem) problems.push(repoDir.problem);
  if (repoRoot && repoDir.dir) {
    const dir = repoDir.dir;
    for (const name of yamlFiles(dir)) {
      const rel = relative(repoRoot, join(dir, name));
      try {
        const read = readConfinedFile(repoRoot, rel, MAX_PIPELINE_BYTES);
        if (read.size > MAX_PIPELINE_BYTES) problems.push({ file: rel, message: `the file is larger than ${MAX_PIPELINE_BYTES / 1024} KiB` });
        else parse(read.bytes.toString('utf8'), rel);
      } catch (error) {
        problems.push({ file: rel, message: error instanceof Error ? error.message : String(error) });
      }
    }
  }
  return buildPipelines(raws, problems);
}

function yamlFiles(dir: string): string[] {
  if (!existsSync(dir) || !lstatSync(dir).isDirectory()) return [];
  return readdirSync(dir)
    .filter((n) => /\.ya?ml$/i.test(n))
    .sort();
}

/** A one-line description of a problem: `file:line: pipeline "x": message`. */
export function describeProblem(p: PipelineProblem): string {
  return `${p.file}${p.line ? `:${p.line}` : ''}: ${p.name ? `pipeline "${p.name}": ` : ''}${p.message}`;
}
