import { z } from 'zod';
import { event, request } from './define';
import type { RunStarted } from './runInfo';

/** Lifecycle of a registered repository's index. */
export type RepoStatus = 'new' | 'indexing' | 'ready' | 'failed';

/** Counts of what the curated index holds. */
export interface IndexCounts {
  files: number;
  symbols: number;
  references: number;
  dependencies: number;
  commits: number;
  coChangePairs: number;
  chunks: number;
}

/** Counts of what the curated index holds for one repository. */
export interface RepoStats extends IndexCounts {
  /** Indexed files per language (`python`, `typescript`, `markdown`, `text` ...). */
  languages: Record<string, number>;
}

/** A registered repository as the Repositories page shows it. */
export interface RepoInfo {
  /** Slug of the folder name + short hash of the absolute path, e.g. `clean-room-3fa2c1d0`. */
  id: string;
  name: string;
  /** Absolute path of the repository folder. */
  path: string;
  status: RepoStatus;
  /** ISO time of the last successful index, null before the first. */
  lastIndexedAt: string | null;
  stats: RepoStats;
  /** Whether the file watcher re-indexes saved files. */
  watching: boolean;
  /** Why the last index failed (status `failed`). */
  error?: { code: string; message: string };
  /** Whether the folder is a git work tree (false: no history, no co-change); absent until an index looked. */
  git?: boolean;
  /** What a person chose for this repository (absent: nothing chosen). */
  settings?: RepoSettings;
}

/** A chat pipeline's name as `pipeline.name` spells it in its YAML. */
export const pipelineNameSchema = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, { error: 'pipeline must be a pipeline name (1–64 letters, digits, _ . or -)' });

/**
 * Settings a person chose for one repository, kept with it in the registry (never in the
 * repository): `chatPipeline` is the chat pipeline new conversations use instead of the built-in
 * `default` (set by chat/setDefaultPipeline, which checks the repository can use it).
 */
export const repoSettingsSchema = z.object({ chatPipeline: pipelineNameSchema.optional() }).strict();

/** A repository's settings (see repoSettingsSchema). */
export type RepoSettings = z.infer<typeof repoSettingsSchema>;

/** Why a file is recorded but not parsed. */
export type SkipReason = 'binary' | 'oversize' | 'minified' | 'generated' | 'submodule' | 'unreadable';

/** A file that was recorded without being parsed or searched. */
export interface SkippedFile {
  path: string;
  reason: SkipReason;
  size: number;
}

/** What one index run did; the `result` of its `run/finished` event and the `cra index --json` output. */
export interface IndexSummary extends IndexCounts {
  durationMs: number;
  skipped: Array<{ path: string; reason: SkipReason }>;
  /** Files parsed in this run (every indexed one on a first index, only added/changed ones afterwards); skipped files are not counted. */
  parsed: number;
  /** Files removed from the index in this run. */
  removed: number;
  /** Wall time per phase in run order (`scanning`, `parsing`, `references`, `git history`, `search index`, `saving`), ms. */
  phaseMs: Record<string, number>;
}

/** One symbol of a file's outline. Lines are 1-based, inclusive. */
export interface OutlineSymbol {
  id: number;
  name: string;
  qualifiedName: string;
  kind: string;
  signature: string;
  startLine: number;
  endLine: number;
  /** Id of the enclosing symbol, null at top level. */
  parentId: number | null;
  isExported: boolean;
}

/** A commit as the file view lists it. */
export interface CommitSummary {
  sha: string;
  author: string;
  date: string;
  message: string;
}

/** One file of a repository: its outline, neighbours, history and (capped) content. */
export interface RepoFileView {
  repoId: string;
  path: string;
  language: string;
  size: number;
  lines: number;
  isTest: boolean;
  skipReason: SkipReason | null;
  symbols: OutlineSymbol[];
  /** Files this file imports (resolved to repository paths). */
  imports: string[];
  /** Files that import this file. */
  importedBy: string[];
  coChanges: Array<{ path: string; count: number }>;
  commits: CommitSummary[];
  /** Test files linked to this file, or code files this test file exercises. */
  tests: string[];
  /** Text for a read-only viewer; null for binary/unreadable files. */
  content: string | null;
  /** True when `content` was cut at `maxContentBytes`. */
  contentTruncated: boolean;
}

/** A repository at a glance (repos/overview): what its index holds, its biggest folders, its hubs and latest commits. */
export interface RepoOverviewView {
  repoId: string;
  /** Indexed (parsed or searchable) files; skipped ones are counted apart. */
  files: number;
  skippedFiles: number;
  testFiles: number;
  symbols: number;
  dependencies: number;
  commits: number;
  /** Indexed files per language, most first. */
  languages: Record<string, number>;
  /** Folders (up to two levels deep; `.` = the root) with the most indexed files, most first. */
  modules: Array<{ path: string; files: number; languages: Record<string, number> }>;
  /** Files with the most import edges (both directions). */
  mostConnected: Array<{ path: string; imports: number; importedBy: number }>;
  /** The latest commits of the indexed history, newest first. */
  recentCommits: CommitSummary[];
}

const repoId = z.string().min(1).max(200);

/** Repository registry and indexing. Indexing runs as a `run` of kind `index` (phases: scanning, parsing, references, git history, search index). */
export const reposRequests = {
  'repos/list': request<RepoInfo[]>()('Every registered repository, by name.', () => z.object({}).strict(), {}),
  'repos/get': request<RepoInfo>()('One registered repository; NOT_FOUND when unknown.', () => z.object({ repoId }).strict(), {
    repoId: 'repo-does-not-exist',
  }),
  'repos/add': request<RunStarted<'index'> & { repo: RepoInfo }>()(
    'Register a folder (must exist, be a directory and be readable) and start indexing it; an already registered path is re-indexed (`full` re-parses everything).',
    () => z.object({ path: z.string().min(1).max(4096), watch: z.boolean().optional(), full: z.boolean().optional() }).strict(),
    { path: '/nonexistent/clean-room-example-repository' },
  ),
  'repos/remove': request<{ removed: boolean }>()(
    "Forget a repository and delete its index (our state only; the repository's files are never touched).",
    () => z.object({ repoId }).strict(),
    { repoId: 'repo-does-not-exist' },
  ),
  'repos/reindex': request<RunStarted<'index'>>()(
    'Re-index a repository (incremental unless `full`).',
    () => z.object({ repoId, full: z.boolean().default(false) }).strict(),
    { repoId: 'repo-does-not-exist' },
  ),
  'repos/watch': request<RepoInfo>()(
    'Switch the file watcher of a repository on or off.',
    () => z.object({ repoId, enabled: z.boolean() }).strict(),
    { repoId: 'repo-does-not-exist', enabled: false },
  ),
  'repos/skipped': request<SkippedFile[]>()(
    'Files recorded but not parsed (binary, oversize, minified, generated, submodule, unreadable), with the reason.',
    () => z.object({ repoId }).strict(),
    { repoId: 'repo-does-not-exist' },
  ),
  'repos/file': request<RepoFileView>()(
    "One indexed file: outline, imports / imported-by, co-change neighbours, recent commits and its content (capped).",
    () => z
      .object({ repoId, path: z.string().min(1).max(4096), maxContentBytes: z.number().int().min(0).max(5_000_000).default(1_000_000) })
      .strict(),
    { repoId: 'repo-does-not-exist', path: 'src/main.py' },
  ),
  'repos/readFile': request<RepoFileView>()(
    "repos/file for a path an agent or a user gave (the MCP server's read_code): the path is confined to the repository first — no absolute path, no `..` out, no symbolic link pointing out, nothing under `.git` — and refused with what to give instead; then the indexed file, its content capped at `maxContentBytes`. Reads only.",
    () => z
      .object({ repoId, path: z.string().min(1).max(4096), maxContentBytes: z.number().int().min(0).max(5_000_000).default(1_000_000) })
      .strict(),
    { repoId: 'repo-does-not-exist', path: 'src/main.py' },
  ),
  'repos/fingerprint': request<TreeFingerprint>()(
    "A cheap fingerprint of a repository's working tree (in a git work tree: HEAD and the changed and untracked files with size and mtime, from one `git status` that writes nothing; elsewhere every file's path, size and mtime), and when it was last indexed: a client compares fingerprints to know whether the index may be behind the folder. Reads only.",
    () => z.object({ repoId }).strict(),
    { repoId: 'repo-does-not-exist' },
  ),
  'repos/overview': request<RepoOverviewView>()(
    'An indexed repository at a glance: counts, languages, the folders with the most files, the most connected files and the latest commits.',
    () => z.object({ repoId, modules: z.number().int().min(1).max(100).default(15), commits: z.number().int().min(0).max(100).default(10) }).strict(),
    { repoId: 'repo-does-not-exist' },
  ),
  'repos/find': request<RepoInfo | null>()(
    'The repository registered for a folder (the path checked and made canonical as repos/add does), or null; starts nothing. With `indexed: true`, a folder that is not registered or whose first index has not finished answers NOT_INDEXED with what to do instead.',
    () => z.object({ path: z.string().min(1).max(4096), indexed: z.boolean().optional() }).strict(),
    { path: '/nonexistent/clean-room-example-repository' },
  ),
  'repos/resolve': request<RepoInfo>()(
    'The indexed repository a folder is in — the folder itself or the nearest registered one above it, matched also through its real path — as `cra … --repo PATH` means it. NOT_FOUND for a folder that does not exist, NOT_INDEXED (saying how to index it) for one without a finished index.',
    () => z.object({ path: z.string().min(1).max(4096) }).strict(),
    { path: '/path/to/repository/src' },
  ),
  'repos/probe': request<FolderProbe>()(
    'Before adding a folder: whether it is a git work tree and, when it is not, how many files an index would take (counted up to `limit`, `capped` beyond); starts nothing, writes nothing.',
    () => z.object({ path: z.string().min(1).max(4096), limit: z.number().int().min(1).max(1_000_000).default(20_000) }).strict(),
    { path: '~' },
  ),
} as const;

/** What `repos/fingerprint` answers: equal fingerprints mean an unchanged working tree. */
export interface TreeFingerprint {
  repoId: string;
  /** `git:<sha1>` in a git work tree, `walk:<sha1>` elsewhere. */
  fingerprint: string;
  /** ISO time of the last finished index, as repos/get says. */
  lastIndexedAt: string | null;
}

/** What `repos/probe` found in a folder before it is added. */
export interface FolderProbe {
  /** The folder checked and made canonical as repos/add does. */
  path: string;
  isGit: boolean;
  /** Files an index would list; null for a git work tree (not counted). */
  files: number | null;
  /** True when the count stopped at the limit: there are at least `files`. */
  capped: boolean;
}

/** Repository events. Index progress arrives as `run/progress` of kind `index`. */
export const reposEvents = {
  'repos/changed': event<RepoInfo>()("A repository's status or statistics changed (added, indexing, indexed, failed)."),
  'repos/removed': event<{ repoId: string }>()('A repository was removed from the registry.'),
} as const;
