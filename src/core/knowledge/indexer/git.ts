import { runGit } from '../../platform/git';
import { detach } from './detach';

// Repository queries live in core/git; re-exported so the indexer's imports stay as they were.
export { gitHead, isAncestor, isGitWorkTree } from '../../platform/git';

/** A commit with the repository-relative paths it touched. */
export interface GitCommit {
  sha: string;
  author: string;
  email: string;
  date: string;
  message: string;
  files: string[];
}

/** Tracked and untracked-but-not-ignored files, relative to `dir`; gitlinks (submodules) apart. */
export async function gitListFiles(dir: string, signal?: AbortSignal): Promise<{ files: string[]; submodules: string[] }> {
  const [stagedOut, othersOut] = await Promise.all([
    runGit(['ls-files', '-z', '--stage'], { cwd: dir, signal }),
    runGit(['ls-files', '-z', '--others', '--exclude-standard', '--directory', '--no-empty-directory'], { cwd: dir, signal }),
  ]);
  const staged = stagedOut.toString('utf8');
  const others = othersOut.toString('utf8');
  const files = new Set<string>();
  const submodules = new Set<string>();
  for (const entry of staged.split('\0')) {
    if (!entry) continue;
    const tab = entry.indexOf('\t');
    // Copied: a slice would keep the whole listing (≈ 11 MB at 50k files) alive for the run.
    const path = detach(entry.slice(tab + 1));
    if (entry.startsWith('160000 ')) submodules.add(path);
    else files.add(path);
  }
  for (const path of others.split('\0')) {
    if (!path) continue;
    // `--directory` reports an untracked nested repository as "dir/"; record it like a submodule.
    if (path.endsWith('/')) submodules.add(path.slice(0, -1));
    else files.add(detach(path));
  }
  return { files: [...files].sort(), submodules: [...submodules].sort() };
}

const LOG_FORMAT = '%x1e%H%x1f%an%x1f%ae%x1f%aI%x1f%B%x1d';

/**
 * Commits reachable from HEAD (excluding those reachable from `since`), newest first, at most
 * `maxCount`, with the paths each touched relative to `dir` (one `git log` process).
 */
export async function gitLog(dir: string, options: { maxCount: number; since?: string; signal?: AbortSignal }): Promise<GitCommit[]> {
  const range = options.since ? [`${options.since}..HEAD`] : ['HEAD'];
  const args = ['log', `--max-count=${options.maxCount}`, '--no-renames', '--relative', '--name-only', '-z', `--format=${LOG_FORMAT}`, ...range, '--'];
  const text = (await runGit(args, { cwd: dir, signal: options.signal })).toString('utf8');
  return parseLog(text);
}

/** The newest `maxCount` commits of HEAD, in `git log`'s order (what a full pass would read). */
export async function gitRevList(dir: string, options: { maxCount: number; signal?: AbortSignal }): Promise<string[]> {
  const text = (await runGit(['rev-list', `--max-count=${options.maxCount}`, 'HEAD', '--'], { cwd: dir, signal: options.signal })).toString('utf8');
  return text.split('\n').filter((line) => line.length > 0);
}

/** Parse the output of `git log -z --name-only` with LOG_FORMAT. */
export function parseLog(text: string): GitCommit[] {
  const commits: GitCommit[] = [];
  for (const record of text.split('\x1e')) {
    const end = record.indexOf('\x1d');
    if (end < 0) continue;
    const [sha = '', author = '', email = '', date = '', ...message] = record.slice(0, end).split('\x1f');
    const files = record
      .slice(end + 1)
      .split('\0')
      .map((p) => p.replace(/^\n/, ''))
      .filter((p) => p.length > 0);
    commits.push({ sha, author, email, date, message: message.join('\x1f').trim(), files });
  }
  return commits;
}

/** Co-change pairs (a < b) with counts over commits touching 2..maxFilesPerCommit files. */
export function coChangePairs(commits: ReadonlyArray<Pick<GitCommit, 'files'>>, maxFilesPerCommit: number): Map<string, number> {
  const pairs = new Map<string, number>();
  for (const commit of commits) {
    if (commit.files.length < 2 || commit.files.length > maxFilesPerCommit) continue;
    const files = [...new Set(commit.files)].sort();
    for (let i = 0; i < files.length; i++) {
      for (let j = i + 1; j < files.length; j++) {
        const key = `${files[i]}\0${files[j]}`;
        pairs.set(key, (pairs.get(key) ?? 0) + 1);
      }
    }
  }
  return pairs;
}
