import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGitSync } from '../../platform/git';
import { isGoldSourcePath, isTestPath } from './classify';
import { buildFixtureRepo, FIXTURE_TASKS } from '../../testing/fixtureRepo';
import { messageSkipReason, mineTasks, taskTextFromMessage } from './mine';

let root: string;
let repo: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'cra-mine-'));
  repo = buildFixtureRepo(join(root, 'repo'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('commit mining on a repository with known history', () => {
  it('mines exactly the behaviour-changing commits, newest first, with their gold files', async () => {
    const mined = await mineTasks({ repoPath: repo, commits: 50 });
    expect(mined.tasks.map((t) => ({ task: t.task, gold: t.gold }))).toEqual(FIXTURE_TASKS);
    expect(mined.skipped).toEqual({
      root: 1,
      docs: 1,
      version: 2,
      revert: 1,
      merge: 1,
      'too-many-files': 1,
      'added-source': 1,
      typo: 1,
    });
    expect(mined.considered).toBe(14);
  });

  it('gives each task the parent of its commit', async () => {
    const [newest] = (await mineTasks({ repoPath: repo, commits: 1 })).tasks;
    const parent = runGitSync(['rev-parse', `${newest!.commit}^`], { cwd: repo }).trim();
    expect(newest!.parent).toBe(parent);
    expect(newest!.id).toBe(newest!.commit!.slice(0, 12));
  });

  it('stops at the N most recent qualifying commits and honours --since', async () => {
    const two = await mineTasks({ repoPath: repo, commits: 2 });
    expect(two.tasks.map((t) => t.gold)).toEqual([FIXTURE_TASKS[0]!.gold, FIXTURE_TASKS[1]!.gold]);
    const late = await mineTasks({ repoPath: repo, since: '2024-01-01T00:15:00Z' });
    expect(late.tasks.map((t) => t.gold)).toEqual([FIXTURE_TASKS[0]!.gold, FIXTURE_TASKS[1]!.gold]);
  });
});

describe('task text and message rules', () => {
  it('strips issue numbers, trailers and URLs', () => {
    const text = taskTextFromMessage(
      'Fix overflow in the parser (#123)\n\nCloses #9, see GH-44 and https://x.org/a.\n\nSigned-off-by: A <a@b>\nReviewed-by: C <c@d>',
    );
    expect(text).toBe('Fix overflow in the parser');
    expect(taskTextFromMessage('Handle GH-44 edge when parsing, fixes #12 for https://a.b/c users')).toBe('Handle edge when parsing, for users');
  });

  it('recognises the commits that do not change behaviour', () => {
    expect(messageSkipReason('Bump version to 2.0.1')).toBe('version');
    expect(messageSkipReason('2.0.1')).toBe('version');
    expect(messageSkipReason('build(deps): bump lodash from 4.1 to 4.2')).toBe('dependencies');
    expect(messageSkipReason('Bump urllib3 from 1.26.4 to 1.26.5')).toBe('dependencies');
    expect(messageSkipReason('Bump the python-packages group with 6 updates')).toBe('dependencies');
    expect(messageSkipReason('update dev dependencies')).toBe('dependencies');
    expect(messageSkipReason(':arrow_up: statuses@2.0.1')).toBe('dependencies');
    expect(messageSkipReason('Merge commit from fork')).toBe('merge');
    expect(messageSkipReason('docs: explain routing')).toBe('docs');
    expect(messageSkipReason('ci: cache pip')).toBe('ci');
    expect(messageSkipReason('Reformat with black')).toBe('formatting');
    expect(messageSkipReason('Fix typos')).toBe('typo');
    expect(messageSkipReason('Revert "Add x"')).toBe('revert');
    expect(messageSkipReason('Handle empty headers in the parser')).toBeUndefined();
  });

  it('tells tests and docs from source', () => {
    expect(isGoldSourcePath('src/werkzeug/routing/map.py')).toBe(true);
    expect(isGoldSourcePath('lib/index.js')).toBe(true);
    expect(isTestPath('tests/test_routing.py')).toBe(true);
    expect(isGoldSourcePath('test/index.js')).toBe(false);
    expect(isGoldSourcePath('src/a.test.ts')).toBe(false);
    expect(isGoldSourcePath('docs/conf.py')).toBe(false);
    expect(isGoldSourcePath('CHANGES.rst')).toBe(false);
    expect(isGoldSourcePath('package.json')).toBe(false);
    expect(isGoldSourcePath('.github/workflows/x.js')).toBe(false);
    expect(isGoldSourcePath('eslint.config.mjs')).toBe(false);
    expect(isGoldSourcePath('vite.config.ts')).toBe(false);
    expect(isGoldSourcePath('setup.py')).toBe(false);
    expect(isGoldSourcePath('src/config.ts')).toBe(true);
  });
});
