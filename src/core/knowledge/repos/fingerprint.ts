import { nodeCrypto } from '../../platform/nodeModules';
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runGit } from '../../platform/git/run';

/** Folders a walk of a folder without git never enters. */
const SKIPPED = new Set(['.git', 'node_modules']);

/**
 * A cheap fingerprint of a repository's working tree: in a git work tree, HEAD and the changed
 * and untracked files with their size and mtime (one `git status`, no optional locks: it writes
 * nothing); elsewhere, every file's path, size and mtime.
 */
export async function treeFingerprint(root: string): Promise<string> {
  const hash = nodeCrypto().createHash('sha1');
  let status: Buffer | undefined;
  try {
    status = await runGit(['status', '--porcelain=v2', '--branch', '-z', '--untracked-files=all'], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
  } catch {
    status = undefined;
  }
  if (status) {
    hash.update(status);
    for (const entry of status.toString('utf8').split('\0')) {
      // Changed (1/2/u) and untracked (?) entries end with the path; a rename's origin follows as its own part.
      const path = /^[12u?] /.test(entry) ? entry.split(' ').slice(entry.startsWith('?') ? 1 : entry.startsWith('1') ? 8 : entry.startsWith('2') ? 9 : 10).join(' ') : '';
      if (path) hash.update(`${path}\0${statOf(join(root, path))}\0`);
    }
    return `git:${hash.digest('hex')}`;
  }
  const visit = (dir: string): void => {
    let entries;
    try {
      entries = readdirSync(join(root, dir), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
    } catch {
      return;
    }
    for (const e of entries) {
      const rel = dir ? `${dir}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!SKIPPED.has(e.name)) visit(rel);
      } else hash.update(`${rel}\0${statOf(join(root, rel))}\0`);
    }
  };
  visit('');
  return `walk:${hash.digest('hex')}`;
}

function statOf(path: string): string {
  try {
    const s = lstatSync(path);
    return `${s.size}:${s.mtimeMs}`;
  } catch {
    return 'gone';
  }
}
