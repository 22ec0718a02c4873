import { accessSync, constants, existsSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { AppError, isCancellation, serializeError, type FolderProbe, type IndexSummary, type RepoFileView, type RepoInfo, type SkippedFile } from '../../../shared/contract';
import { openRawDatabase } from '../../platform/db/raw';
import { readConfinedFile } from '../../platform/fs/confine';
import { createExtractor, type Extractor } from '../indexer/extract/extractor';
import { isGitWorkTree } from '../indexer/git';
import { countFiles } from '../indexer/scan';
import { indexRepository } from '../indexer/indexer';
import { KnowledgeBase } from '../kb/knowledgeBase';
import type { HostPolicy, HostPorts } from '../../platform/ports';
import type { EventBus } from '../../platform/runtime/events';
import type { RunRegistry } from '../../platform/runtime/runs';
import { requireRepo, resolveIndexedRepo } from './indexed';
import { type RepoRegistry } from './registry';
import type { RepoHandles } from './handles';
import { RepoWatcher } from './watcher';
import { repoPaths } from '../../platform/layout';

/**
 * `~` and `~/…` stand for the home folder, as in a shell: a path typed into the app's field never
 * passes through one, and the CLI gets a literal `~` when the user quotes it.
 */
export function expandHome(input: string): string {
  if (input === '~') return homedir();
  if (input.startsWith('~/') || input.startsWith('~\\')) return join(homedir(), input.slice(2));
  return input;
}

/**
 * Check that a user-given path is an existing, readable directory and return its canonical
 * absolute path. `~` is the home folder. A relative path is taken from the process's folder
 * (the CLI's cwd) unless `allowRelative` is false (the app: its engine's folder means nothing to
 * the person typing, so a relative path is refused with a message instead of resolved silently).
 * Throws an AppError naming the problem; writes nothing.
 */
export function validateRepoPath(input: string, options: { allowRelative?: boolean } = {}): string {
  const expanded = expandHome(input.trim());
  if (options.allowRelative === false && !isAbsolute(expanded)) {
    throw new AppError(
      'VALIDATION',
      `"${input}" is a relative path; give the repository's absolute path (for example /home/you/project or ~/project). The app does not guess which folder it is relative to.`,
    );
  }
  const absolute = resolve(expanded);
  if (!existsSync(absolute)) throw new AppError('NOT_FOUND', `No folder at ${absolute}. Check the path and try again.`);
  const real = realpathSync(absolute);
  if (!statSync(real).isDirectory()) throw new AppError('VALIDATION', `${absolute} is a file, not a folder. Give the repository's folder.`);
  try {
    accessSync(real, constants.R_OK | constants.X_OK);
    readdirSync(real);
  } catch {
    throw new AppError('VALIDATION', `Cannot read ${absolute} (permission denied). Fix its permissions or choose another folder.`);
  }
  return real;
}

/** How much of the shared registry an engine takes charge of. */
export interface RepoServiceOptions {
  /**
   * Start the file watchers of watched repositories (and of new ones). Default true; the CLI's
   * commands pass false: a one-shot process must not re-index repositories it was not asked about.
   */
  watch?: boolean;
  /**
   * At start, reset repositories left `indexing` by a process that is gone (a crash). Default true;
   * read-only commands (`cra search`) pass false and write nothing to the registry. A run of a live
   * process is never reset, whatever this says.
   */
  recoverStatuses?: boolean;
}

/** What the repository service uses of the engine's shared pieces. */
export interface RepoServiceContext {
  ports: HostPorts;
  policy: HostPolicy;
  events: EventBus;
  runs: RunRegistry;
  registry: RepoRegistry;
  repos: RepoHandles;
}

/**
 * The repositories of this engine: the registry, index runs (one at a time per repository), the
 * optional file watchers, and read access to each index through a KnowledgeBase.
 */
export class RepoService {
  readonly registry: RepoRegistry;
  private extractor: Promise<Extractor> | undefined;
  private readonly active = new Map<string, { runId: string; again: boolean; done: Promise<unknown> }>();
  private readonly watchers = new Map<string, RepoWatcher>();
  private disposed = false;

  private readonly watch: boolean;

  constructor(
    private readonly ctx: RepoServiceContext,
    options: RepoServiceOptions = {},
    /** Finishes or rolls back the applies a killed process left half-done (review's recovery), before anything reads the trees. */
    recoverApplies: (repos: Array<{ path: string; dataDir: string }>) => void = () => undefined,
  ) {
    this.watch = options.watch ?? true;
    this.registry = ctx.registry;
    if (options.recoverStatuses ?? true) {
      for (const repo of this.registry.recoverAbandonedRuns()) this.changed(repo);
      recoverApplies(this.registry.list().map((repo) => ({ path: repo.path, dataDir: repoPaths(ctx.ports.dataDir, repo.id).dir })));
    }
    for (const repo of this.registry.list()) if (repo.watching) this.startWatcher(repo);
  }

  /** Whether new repositories are watched unless the caller says otherwise (the app hosts). */
  private get watchByDefault(): boolean {
    return this.ctx.policy.watchByDefault;
  }

  /** The app hosts (Electron, `cra serve`): paths come from a field, not a shell with a cwd. */
  private get isApp(): boolean {
    return this.ctx.policy.pathsFromForms;
  }

  /** The repository registered for a folder, or null; the path is checked as `add` checks it. */
  find(path: string): RepoInfo | null {
    return this.registry.findByPath(validateRepoPath(path, { allowRelative: !this.isApp })) ?? null;
  }

  /** The indexed repository a folder is in ({@link resolveIndexedRepo}: the folder or the nearest registered one above it). */
  resolve(path: string): RepoInfo {
    return resolveIndexedRepo({ dataDir: this.ctx.ports.dataDir, registry: () => this.registry }, { path }).info;
  }

  /** A folder before it is added: git or not, and a bounded count of its files when not (the app asks before indexing a large one). */
  async probe(path: string, limit: number): Promise<FolderProbe> {
    const root = validateRepoPath(path, { allowRelative: !this.isApp });
    return { path: root, ...(await countFiles(root, limit)) };
  }

  /** One repository or NOT_FOUND. */
  get(repoId: string): RepoInfo {
    return requireRepo(this.registry, repoId);
  }

  /** Register a folder (validated first; nothing is written for a bad path) and start indexing it. */
  add(path: string, options: { watch?: boolean; full?: boolean } = {}): { repo: RepoInfo; runId: string } {
    const root = validateRepoPath(path, { allowRelative: !this.isApp });
    const existing = this.registry.findByPath(root);
    const repo = existing ?? this.registry.add(root, options.watch ?? this.watchByDefault);
    if (!existing) {
      openRawDatabase(repoPaths(this.ctx.ports.dataDir, repo.id).raw).close();
      this.changed(repo);
      if (repo.watching) this.startWatcher(repo);
    }
    const { runId } = this.reindex(repo.id, options.full === true);
    return { repo: this.get(repo.id), runId };
  }

  /** Start an index run, or return the one already running for this repository. */
  reindex(repoId: string, full: boolean): { runId: string } {
    const repo = this.get(repoId);
    const running = this.active.get(repoId);
    if (running) {
      running.again = true;
      return { runId: running.runId };
    }
    const { runId, done } = this.ctx.runs.start('index', `Index ${repo.name}`, (run) => this.runIndex(repo, full, run.signal, run.progress), { repoId });
    const settled = done.then(
      () => this.afterRun(repoId),
      () => this.afterRun(repoId),
    );
    this.active.set(repoId, { runId, again: false, done: settled });
    return { runId };
  }

  /** Wait for a run (tests and the CLI). */
  async wait(runId: string): Promise<IndexSummary> {
    return this.ctx.runs.wait(runId, 'index');
  }

  private afterRun(repoId: string): void {
    const entry = this.active.get(repoId);
    this.active.delete(repoId);
    if (entry?.again && !this.disposed && this.registry.get(repoId)) this.reindex(repoId, false);
  }

  private async runIndex(repo: RepoInfo, full: boolean, signal: AbortSignal, progress: Parameters<typeof indexRepository>[0]['progress']): Promise<IndexSummary> {
    // Said with the start of the first index, so the page can note at once that a plain folder has no history.
    const git = existsSync(repo.path) ? await isGitWorkTree(repo.path) : undefined;
    this.changed(this.registry.update(repo.id, { status: 'indexing', error: null, git }));
    const paths = repoPaths(this.ctx.ports.dataDir, repo.id);
    try {
      validateRepoPath(repo.path);
      const summary = await indexRepository({ root: repo.path, curatedFile: paths.curated, extractor: () => (this.extractor ??= createExtractor()), signal, progress, full });
      const kb = KnowledgeBase.open(paths.curated, repo.id);
      let languages: Record<string, number>;
      try {
        languages = kb.getLanguageCounts();
      } finally {
        kb.close();
      }
      const { files, symbols, references, dependencies, commits, coChangePairs, chunks } = summary;
      const stats = { files, symbols, references, dependencies, commits, coChangePairs, chunks, languages };
      this.changed(this.registry.update(repo.id, { status: 'ready', stats, lastIndexedAt: new Date().toISOString(), error: null }));
      return summary;
    } catch (error) {
      const current = this.registry.get(repo.id);
      if (current) {
        const fallback = current.lastIndexedAt ? 'ready' : 'new';
        const wire = serializeError(error);
        this.changed(this.registry.update(repo.id, isCancellation(error) ? { status: fallback } : { status: 'failed', error: { code: wire.code, message: wire.message } }));
      }
      throw error;
    }
  }

  /** Forget a repository and delete its state folder (never the repository itself). */
  remove(repoId: string): { removed: boolean } {
    const repo = this.get(repoId);
    const running = this.active.get(repoId);
    if (running) this.ctx.runs.cancel(running.runId);
    this.watchers.get(repoId)?.stop();
    this.watchers.delete(repoId);
    this.registry.remove(repo.id);
    // Its connections close before its folder goes (those a running request holds, when it lets go).
    this.ctx.repos.close(repo.id);
    rmSync(repoPaths(this.ctx.ports.dataDir, repo.id).dir, { recursive: true, force: true });
    this.ctx.events.emit('repos/removed', { repoId });
    return { removed: true };
  }

  /** Switch the watcher on or off (remembered in the registry). */
  setWatching(repoId: string, enabled: boolean): RepoInfo {
    const repo = this.registry.update(this.get(repoId).id, { watching: enabled })!;
    if (enabled) this.startWatcher(repo);
    else {
      this.watchers.get(repoId)?.stop();
      this.watchers.delete(repoId);
    }
    this.changed(repo);
    return repo;
  }

  private startWatcher(repo: RepoInfo): void {
    if (!this.watch || this.watchers.has(repo.id) || !existsSync(repo.path)) return;
    const watcher = new RepoWatcher(repo.path, () => {
      if (this.registry.get(repo.id)) this.reindex(repo.id, false);
    });
    if (watcher.start()) this.watchers.set(repo.id, watcher);
  }

  /** `read` the repository's index through its handle (NOT_FOUND / NOT_INDEXED first). */
  withIndex<T>(repoId: string, read: (kb: KnowledgeBase) => T): T {
    return this.ctx.repos.use(repoId, (repo) => read(repo.kb));
  }

  /** Files recorded without being parsed, with the reason. */
  skipped(repoId: string): SkippedFile[] {
    return this.withIndex(repoId, (kb) => kb.getSkippedFiles());
  }

  /** One file's view: outline, imports both ways, co-changes, commits, tests and capped content. */
  fileView(repoId: string, path: string, maxContentBytes: number): RepoFileView {
    const repo = this.get(repoId);
    return this.withIndex(repoId, (kb) => {
      const file = kb.getFileByPath(path);
      if (!file) throw new AppError('NOT_FOUND', `${path} is not in the index of ${repo.name}.`);
      const deps = kb.getDependencies(file.id, 'both');
      const symbols = kb.getSymbolsForFile(file.id).map(({ id, name, qualifiedName, kind, signature, startLine, endLine, parentId, isExported }) => ({
        id, name, qualifiedName, kind, signature, startLine, endLine, parentId, isExported,
      }));
      const content = readContent(repo.path, file.path, file.skipReason, maxContentBytes);
      return {
        repoId,
        path: file.path,
        language: file.language,
        size: file.size,
        lines: file.lines,
        isTest: file.isTest,
        skipReason: file.skipReason as RepoFileView['skipReason'],
        symbols,
        imports: deps.filter((d) => d.direction === 'outgoing').map((d) => d.path),
        importedBy: deps.filter((d) => d.direction === 'incoming').map((d) => d.path),
        coChanges: kb.getCoChangeNeighbors(file.id, 1).slice(0, 20).map(({ path: p, count }) => ({ path: p, count })),
        commits: kb.getRecentCommitsForFile(file.id, 10).map(({ sha, author, date, message }) => ({ sha, author, date, message })),
        tests: kb.getTestLinks(file.id).map((t) => t.path),
        ...content,
      };
    });
  }

  private changed(repo: RepoInfo | undefined): void {
    if (repo) this.ctx.events.emit('repos/changed', repo);
  }

  /** Stop watchers and free the parser. */
  async dispose(): Promise<void> {
    this.disposed = true;
    for (const run of [...this.active.values()]) {
      this.ctx.runs.cancel(run.runId);
      await run.done;
    }
    for (const watcher of this.watchers.values()) watcher.stop();
    this.watchers.clear();
    const extractor = this.extractor;
    this.extractor = undefined;
    if (extractor) (await extractor.catch(() => undefined))?.dispose();
  }
}

/**
 * The file's text as it is now, read through the repository confinement: the index is a snapshot,
 * and a file replaced by a link to something outside the repository since then is refused
 * (VALIDATION), never followed. A file deleted since indexing has no content.
 */
function readContent(root: string, path: string, skipReason: string | null, max: number): { content: string | null; contentTruncated: boolean } {
  if (skipReason === 'binary' || skipReason === 'submodule' || skipReason === 'unreadable') return { content: null, contentTruncated: false };
  let read;
  try {
    read = readConfinedFile(root, path, max);
  } catch (error) {
    if (error instanceof AppError && error.code === 'NOT_FOUND') return { content: null, contentTruncated: false };
    throw error;
  }
  const truncated = read.size > max;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(read.bytes);
  } catch {
    // A cut can split a UTF-8 sequence: a truncated file is decoded leniently, a whole one as latin1.
    text = read.bytes.toString(truncated ? 'utf8' : 'latin1');
  }
  return { content: text, contentTruncated: truncated };
}
