import { basename, join } from 'node:path';

/**
 * The data folder's layout: every path under it comes from here (README, "Where data lives",
 * names each top-level entry; `layout.test.ts` keeps the two in step). Where the folder itself is
 * (--data-dir, CRA_HOME, the platform default) is `paths.ts`'s `resolveDataDir`.
 *
 * ```
 * <dataDir>/config.toml             user settings
 * <dataDir>/repos.sqlite            the registry
 * <dataDir>/raw.sqlite              model calls and runs outside any repository
 * <dataDir>/repos/<id>/             one repository's state ({@link RepoPaths})
 * <dataDir>/worktrees/, .objects/   runs' checkouts, and the objects they keep
 * <dataDir>/models/                 the built-in runtime's models
 * <dataDir>/model-checks.json, model-checks/, datasets/, training/plans/, eval/
 * <dataDir>/window-state.json       the app window's size and place
 * ```
 */

/** The file name of a config, user-level (`<dataDir>/config.toml`) or per repository. */
export const CONFIG_FILE = 'config.toml';

/** The user-level config path. */
export function userConfigPath(dataDir: string): string {
  return join(dataDir, CONFIG_FILE);
}

/** The registry database file: `<dataDir>/repos.sqlite`. */
export function registryFile(dataDir: string): string {
  return join(dataDir, 'repos.sqlite');
}

/** The user-level raw DB: model calls made outside any repository's run. */
export function userRawDbPath(dataDir: string): string {
  return join(dataDir, 'raw.sqlite');
}

/** The folder holding one state folder per repository. */
export function reposDir(dataDir: string): string {
  return join(dataDir, 'repos');
}

/**
 * Where a repository's state lives, all under the data folder (never inside the repository):
 * `<dataDir>/repos/<id>/curated.sqlite` (the index), `raw.sqlite` (append-only log), `sessions/`
 * (one database per task run), `plans/` (one JSON file per plan), `summaries.sqlite` (the summary
 * tree) and `review/` (the last apply's undo record, the apply journal, lock and ledger).
 */
export interface RepoPaths {
  dir: string;
  curated: string;
  raw: string;
  sessions: string;
  plans: string;
  summaries: string;
  review: string;
}

/** The state folder and files of one repository. */
export function repoPaths(dataDir: string, repoId: string): RepoPaths {
  const dir = join(reposDir(dataDir), repoId);
  return {
    dir,
    curated: join(dir, 'curated.sqlite'),
    raw: join(dir, 'raw.sqlite'),
    sessions: join(dir, 'sessions'),
    plans: join(dir, 'plans'),
    summaries: join(dir, 'summaries.sqlite'),
    review: join(dir, 'review'),
  };
}

/** The files of a repository's review folder (`repos/<id>/review/`). */
export function reviewFiles(reviewDir: string): { undo: string; journal: string; lock: string; ledger: string } {
  return { undo: join(reviewDir, 'undo.json'), journal: join(reviewDir, 'journal.json'), lock: join(reviewDir, 'apply.lock'), ledger: join(reviewDir, 'applied.json') };
}

/** `<dataDir>/repos/<repoId>/plans`: one JSON file per plan. */
export function plansDir(dataDir: string, repoId: string): string {
  return repoPaths(dataDir, repoId).plans;
}

/** Where a repository's undo record lives: `<repository data folder>/review/undo.json`. */
export function undoFileOf(repoDataDir: string): string {
  return reviewFiles(join(repoDataDir, 'review')).undo;
}

/** The summaries file of a repository's data folder. */
export function summariesFile(repoDir: string): string {
  return join(repoDir, 'summaries.sqlite');
}

/** Where our worktrees live: `<dataDir>/worktrees/<label>-<random>/{owner.json,tree}`. */
export function worktreesDir(dataDir: string): string {
  return join(dataDir, 'worktrees');
}

/**
 * Objects our checkouts made that must outlive them (a solve run's snapshot of uncommitted changes:
 * its resume and its review read that commit): `<worktreesDir>/.objects`, an object folder every git
 * call of this process may read (GIT_ALTERNATE_OBJECT_DIRECTORIES) and none writes to but `keep`.
 */
export function keptObjectsDir(root: string): string {
  return join(root, '.objects');
}

/** The built-in runtime's models: `<dataDir>/models/` (`builtin.json`, downloads in `gguf/`). */
export function modelsDir(dataDir: string): string {
  return join(dataDir, 'models');
}

/** The results of `cra models check` per stage, model and repository. */
export function modelChecksFile(dataDir: string): string {
  return join(dataDir, 'model-checks.json');
}

/** Where the labelled judgments of a repository are kept between checks. */
export function modelCheckDir(dataDir: string, repoRoot: string): string {
  return join(dataDir, 'model-checks', repoRoot.replace(/[^\w.-]+/g, '_').slice(-120));
}

/** The folder every dataset goes in by default: `<data dir>/datasets`. */
export function datasetsDir(dataDir: string): string {
  return join(dataDir, 'datasets');
}

/** The default bootstrap dataset folder of a repository. */
export function defaultDatasetDir(dataDir: string, repoRoot: string): string {
  return join(datasetsDir(dataDir), `bootstrap-${basename(repoRoot)}`);
}

/** The prefix of a running bootstrap's scratch folder (`<dataDir>/bootstrap-<random>/`: its index, removed at the end). */
export function bootstrapScratchPrefix(dataDir: string): string {
  return join(dataDir, 'bootstrap-');
}

/** Where training plans are saved by default: `<data dir>/training/plans/<id>.json`. */
export function defaultPlanFile(dataDir: string, id: string): string {
  return join(dataDir, 'training', 'plans', `${id}.json`);
}

/** Where evaluation reports live: `<dataDir>/eval/<id>.json`. */
export function reportsDir(dataDir: string): string {
  return join(dataDir, 'eval');
}

/** Parsed files kept between processes to start faster (the chat pipelines' YAML); safe to delete. */
export function cacheDir(dataDir: string): string {
  return join(dataDir, 'cache');
}

/** The app window's size and position. */
export function windowStateFile(dataDir: string): string {
  return join(dataDir, 'window-state.json');
}

/**
 * Every path of the layout relative to the data folder, with `<id>` for a repository id and
 * `<path>` / `<plan>` for the other variable parts; folders end in `/`. README's table is checked
 * against this list.
 */
export function layoutEntries(): string[] {
  const root = '/d';
  const rel = (path: string, folder = false) => path.slice(root.length + 1) + (folder ? '/' : '');
  const repo = repoPaths(root, '<id>');
  const review = reviewFiles(repo.review);
  return [
    rel(userConfigPath(root)),
    rel(registryFile(root)),
    rel(userRawDbPath(root)),
    rel(reposDir(root), true),
    rel(repo.dir, true),
    rel(repo.curated),
    rel(repo.raw),
    rel(repo.sessions, true),
    rel(repo.plans, true),
    rel(repo.summaries),
    rel(repo.review, true),
    ...Object.values(review).map((file) => rel(file)),
    rel(worktreesDir(root), true),
    rel(keptObjectsDir(worktreesDir(root)), true),
    rel(modelsDir(root), true),
    rel(modelChecksFile(root)),
    rel(join(root, 'model-checks'), true),
    rel(datasetsDir(root), true),
    `${rel(bootstrapScratchPrefix(root))}<random>/`,
    rel(join(root, 'training'), true),
    rel(join(root, 'training', 'plans'), true),
    rel(reportsDir(root), true),
    rel(cacheDir(root), true),
    rel(windowStateFile(root)),
  ];
}
