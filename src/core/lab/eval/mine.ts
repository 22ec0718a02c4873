import type { EvalTask } from '../../../shared/contract/eval';
import { throwIfAborted } from '../../platform/runtime/runs';
import { isCiPath, isCodePath, isDependencyPath, isDocPath, isGoldSourcePath } from './classify';
import { gitText } from '../../platform/git';

/** One commit as `git log` reports it, with its changed paths and their status letters. */
export interface MinedCommit {
  sha: string;
  parents: string[];
  date: string;
  message: string;
  changes: Array<{ status: string; path: string }>;
}

/** Why a commit was not turned into a task. */
export type SkipReason =
  | 'merge'
  | 'root'
  | 'revert'
  | 'version'
  | 'docs'
  | 'ci'
  | 'formatting'
  | 'dependencies'
  | 'typo'
  | 'no-source'
  | 'too-many-files'
  | 'added-source'
  | 'empty-message';

/** What mining saw: the tasks, and how many commits each rule set aside. */
export interface MineResult {
  tasks: EvalTask[];
  considered: number;
  skipped: Partial<Record<SkipReason, number>>;
}

/** Which commits to mine. */
export interface MineOptions {
  repoPath: string;
  /** The most recent N qualifying commits (default 50). */
  commits?: number;
  /** Only commits after this date (anything `git log --since` accepts). */
  since?: string;
  /** Most source files a qualifying commit may change (default 4). */
  maxFiles?: number;
  signal?: AbortSignal;
}

const MESSAGE_RULES: Array<[SkipReason, RegExp]> = [
  ['merge', /^merge (branch|pull request|remote-tracking|tag|commit)\b/i],
  ['revert', /^revert\b|^"?revert "|this reverts commit [0-9a-f]{7,}/i],
  ['version', /^(release|version|bump version|prepare (for )?release|chore\(release\))\b|^v?\d+\.\d+(\.\d+)?([-.+]\w+)*\s*$|^bump (the )?version|^(release|tag) v?\d+\.\d+|\bversion bump\b|^set version\b/i],
  ['dependencies', /^(build|chore|fix)\(deps(-dev)?\)|^bump \S+ from \S+ to \S+|^bump the [\w.-]+ group\b|^:arrow_up:|^(update|upgrade|bump) (the )?(dependenc|deps\b|dev[- ]?(dependenc|deps\b)|requirements|lock ?file|pinned)|\[pre-commit\.ci\]|pre-commit autoupdate/i],
  ['docs', /^docs?(\(.*?\))?!?:|^(update|fix|improve|add|clarify|edit|tweak|reword)( the| a)? (docs?|documentation|readme|changelog|changes|docstrings?|comments?)\b|^changelog\b/i],
  ['ci', /^ci(\(.*?\))?!?:|^(update|fix|add|tweak) (the )?(ci|github actions?|workflows?|travis|tox)\b/i],
  ['formatting', /^style(\(.*?\))?!?:|\b(re-?format(ted|ting)?|run (black|prettier|isort|ruff format|gofmt)|apply (black|prettier|isort)|(fix )?(lint|linting|flake8|eslint) (errors|warnings|fixes|issues)|whitespace|trailing spaces)\b/i],
  ['typo', /\b(typos?|misspell\w*|spelling)\b/i],
];

/** The first rule a commit message trips, judged on its subject line (and the revert marker anywhere). */
export function messageSkipReason(message: string): SkipReason | undefined {
  const subject = message.trim().split('\n')[0] ?? '';
  for (const [reason, pattern] of MESSAGE_RULES) {
    if (pattern.test(reason === 'revert' ? message : subject)) return reason;
  }
  return undefined;
}

const TRAILER =
  /^\s*(signed-off-by|co-authored-by|reviewed-by|acked-by|tested-by|reported-by|suggested-by|helped-by|requested-by|cc|change-id|fixes|closes|resolves|refs?|see-also|bug|issue|reviewed-on|pr-url|link|backport-of|cherry-picked from|\(cherry picked from)\b.*$/gim;

/**
 * The task text a commit message gives: without trailers (Signed-off-by, Co-authored-by...), URLs,
 * issue and pull-request numbers (#123, GH-123, "closes #5") or CI markers, whitespace folded.
 */
export function taskTextFromMessage(message: string): string {
  return message
    .replace(TRAILER, '')
    .replace(/https?:\/\/\S+/g, '')
    .replace(/\b(see( also)?|refs?|cf\.?|details|more info)\s*:?\s*$/gim, '')
    .replace(/\b(fix(es|ed)?|close[sd]?|resolve[sd]?|see|refs?)\s+(#|gh-)\d+/gi, '')
    .replace(/\(\s*(#|gh-)\d+\s*\)/gi, '')
    .replace(/\b(gh|GH)-\d+\b/g, '')
    .replace(/(^|[\s(,])#\d+\b/g, '$1')
    .replace(/\[(skip ci|ci skip|no ci)\]/gi, '')
    .split('\n')
    .map((line) => line.replace(/[ \t]+/g, ' ').trim())
    .filter((line, i, all) => line !== '' || (i > 0 && all[i - 1] !== ''))
    .join('\n')
    .replace(/[\s(),:;-]+$/g, '')
    .trim();
}

/** Classify a commit by its changed paths: the reason to skip it, or its gold source files. */
export function pathVerdict(commit: MinedCommit, maxFiles = 4): { reason: SkipReason } | { gold: string[] } {
  const paths = commit.changes.map((c) => c.path);
  const gold = commit.changes.filter((c) => isGoldSourcePath(c.path));
  if (gold.length === 0) {
    if (paths.length > 0 && paths.every(isDocPath)) return { reason: 'docs' };
    if (paths.length > 0 && paths.every((p) => isCiPath(p) || isDocPath(p))) return { reason: 'ci' };
    if (paths.some(isDependencyPath) && !paths.some(isCodePath)) return { reason: 'dependencies' };
    return { reason: 'no-source' };
  }
  if (gold.some((c) => c.status !== 'M' && c.status !== 'D' && c.status !== 'T')) return { reason: 'added-source' };
  if (gold.length > maxFiles) return { reason: 'too-many-files' };
  return { gold: gold.map((c) => c.path).sort() };
}

/** Decide one commit: a task, or the reason it is not one. */
export function judgeCommit(commit: MinedCommit, maxFiles = 4): { task: EvalTask } | { reason: SkipReason } {
  if (commit.parents.length > 1) return { reason: 'merge' };
  const parent = commit.parents[0];
  if (!parent) return { reason: 'root' };
  const byMessage = messageSkipReason(commit.message);
  if (byMessage) return { reason: byMessage };
  const byPaths = pathVerdict(commit, maxFiles);
  if ('reason' in byPaths) return byPaths;
  const task = taskTextFromMessage(commit.message);
  if (!/[a-z]{3}/i.test(task)) return { reason: 'empty-message' };
  return { task: { id: commit.sha.slice(0, 12), task, parent, gold: byPaths.gold, commit: commit.sha, date: commit.date } };
}

/** Parse `git log -z --name-status --format=%x01%H%x02%P%x02%aI%x02%B%x03` output. */
export function parseLog(output: string): MinedCommit[] {
  const commits: MinedCommit[] = [];
  for (const record of output.split('\x01')) {
    const end = record.indexOf('\x03');
    if (end < 0) continue;
    const [sha = '', parents = '', date = '', message = ''] = record.slice(0, end).split('\x02');
    const fields = record.slice(end + 1).replace(/^[\0\n]+/, '').split('\0');
    const changes: MinedCommit['changes'] = [];
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const status = (fields[i] ?? '').trim().charAt(0);
      const path = fields[i + 1] ?? '';
      if (status && path) changes.push({ status, path });
    }
    commits.push({ sha, parents: parents.split(' ').filter(Boolean), date, message, changes });
  }
  return commits;
}

const PAGE = 400;

/**
 * Mine evaluation tasks from a repository's history, newest first: non-merge, behaviour-changing
 * commits that change 1..maxFiles source files which existed at the parent. Reads `git log` page
 * by page so a long history is not read past the N commits asked for.
 */
export async function mineTasks(options: MineOptions): Promise<MineResult> {
  const wanted = options.commits ?? 50;
  const result: MineResult = { tasks: [], considered: 0, skipped: {} };
  for (let skip = 0; result.tasks.length < wanted; skip += PAGE) {
    throwIfAborted(options.signal);
    const args = ['log', '-z', '--no-renames', '--name-status', '--format=%x01%H%x02%P%x02%aI%x02%B%x03', `--skip=${skip}`, `-n`, String(PAGE)];
    if (options.since) args.push(`--since=${options.since}`);
    args.push('HEAD', '--');
    const page = parseLog(await gitText(args, { cwd: options.repoPath, signal: options.signal }));
    for (const commit of page) {
      if (result.tasks.length >= wanted) break;
      result.considered += 1;
      const verdict = judgeCommit(commit, options.maxFiles);
      if ('task' in verdict) result.tasks.push(verdict.task);
      else result.skipped[verdict.reason] = (result.skipped[verdict.reason] ?? 0) + 1;
    }
    if (page.length < PAGE) break;
  }
  return result;
}
