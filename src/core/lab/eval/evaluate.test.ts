import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGitSync } from '../../platform/git';
import { createCore } from '../../app/createCore';
import { createTestRepo } from '../../testing/gitRepo';
import { createTempCore } from '../../testing/tempCore';
import { evaluateRepository } from './evaluate';
import { buildFixtureRepo, FIXTURE_TASKS } from '../../testing/fixtureRepo';
import { formatReport } from '../../../shared/evalFormat/format';
import { productRetrieval } from './product';

let root: string;
let repo: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'cra-evaluate-'));
  repo = buildFixtureRepo(join(root, 'repo'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('evaluateRepository', () => {
  it('runs tasks from a file, records a task with an unknown parent as failed, and stores the report', async () => {
    const parent = runGitSync(['rev-parse', 'HEAD~2'], { cwd: repo }).trim();
    const file = join(root, 'tasks.jsonl');
    writeFileSync(
      file,
      [
        JSON.stringify({ id: 'cookie', task: 'Fix cookie parsing for quoted values', parent, gold: ['src/app/util.py'] }),
        JSON.stringify({ id: 'ghost', task: 'anything', parent: 'f'.repeat(40), gold: ['src/app/util.py'] }),
      ].join('\n'),
    );
    const dataDir = join(root, 'data-file');
    const { report, file: stored } = await evaluateRepository({ dataDir, repoPath: repo, tasksFile: file, ks: [1, 3] });
    expect(stored).toBe(join(dataDir, 'eval', `${report.id}.json`));
    expect(report.source).toEqual({ kind: 'file', file });
    expect(report.tasks.map((t) => t.id)).toEqual(['cookie', 'ghost']);
    expect(report.tasks[1]!.error).toMatch(/not a commit of this repository/);
    // Only the good task counts: BM25 ranks util.py first for it (the only file saying "cookie").
    expect(report.summary.bm25).toEqual({ recallAt: { 1: 1, 3: 1 }, allGoldAt: { 1: 1, 3: 1 }, mrr: 1 });
    expect(report.notes.join(' ')).toMatch(/1 task\(s\) could not be run/);
    expect(formatReport(report)).toMatch(/Failed ghost: parent f+ is not a commit/);
  });

  it('scores the gold functions of a tasks-file task that names its fix commit, and fails one whose commit is not here', async () => {
    const commit = runGitSync(['rev-parse', 'HEAD~1'], { cwd: repo }).trim();
    const parent = runGitSync(['rev-parse', 'HEAD~2'], { cwd: repo }).trim();
    const gold = runGitSync(['diff', '--name-only', parent, commit], { cwd: repo }).trim().split('\n').filter((p) => p.startsWith('src/') && !p.includes('test'));
    const file = join(root, 'issues.json');
    writeFileSync(
      file,
      [
        JSON.stringify({ id: 'fixed', task: 'Fix cookie parsing for quoted values', parent, gold, commit, url: 'https://example.org/issues/1' }),
        JSON.stringify({ id: 'lost', task: 'anything', parent, gold, commit: 'e'.repeat(40) }),
      ].join('\n'),
    );
    const { report } = await evaluateRepository({ dataDir: join(root, 'data-functions'), repoPath: repo, tasksFile: file, ks: [1, 10], retrieval: productRetrieval() });
    const [fixed, lost] = report.tasks;
    expect(report.methods).toContain('search-functions');
    expect(fixed!.goldFunctions!.length).toBeGreaterThan(0);
    for (const unit of fixed!.goldFunctions!) expect(gold).toContain(unit.split('::')[0]);
    expect(Object.keys(fixed!.results['search-functions']!.goldRanks).sort()).toEqual([...fixed!.goldFunctions!].sort());
    expect(lost!.error).toBe(`commit ${'e'.repeat(40)} is not a commit of this repository`);
  });

  it('refuses --pipeline without the product index, a missing folder and a folder that is not a repository, clearly', async () => {
    const dataDir = join(root, 'data-refuse');
    const pipeline = { judge: 'yes' as const, budget: { contextWindow: 32768, reservedTokens: 4096 } };
    await expect(evaluateRepository({ dataDir, repoPath: repo, pipeline })).rejects.toMatchObject({
      code: 'UNSUPPORTED',
      message: expect.stringMatching(/only be evaluated over the product index/),
    });
    await expect(evaluateRepository({ dataDir, repoPath: join(root, 'nope') })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(evaluateRepository({ dataDir, repoPath: tmpdir() })).rejects.toMatchObject({ code: 'VALIDATION' });
  });
});

describe('the eval domain through the engine', () => {
  it('starts a run that stores a report, then lists and returns it', async () => {
    const env = createTempCore();
    try {
      const { runId } = await env.core.handlers['eval/start']({ repoPath: repo, commits: 2 });
      const result = (await env.core.runs.wait(runId)) as { reportId: string };
      const list = await env.core.handlers['eval/list']({});
      expect(list.map((r) => r.id)).toEqual([result.reportId]);
      expect(list[0]!.taskCount).toBe(2);
      const report = await env.core.handlers['eval/get']({ id: result.reportId });
      expect(report.methods).toEqual(['search', 'search-source', 'search-functions', 'bm25', 'bm25-source', 'bm25-standard']);
      expect(report.tasks.map((t) => t.gold).sort()).toEqual([FIXTURE_TASKS[0]!.gold, FIXTURE_TASKS[1]!.gold].sort());
      await expect(env.core.handlers['eval/get']({ id: 'missing' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    } finally {
      await env.cleanup();
    }
  });

  it('advises the app in its own terms when the history gives no task, and refuses a relative path there', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cra-test-'));
    const core = createCore({ host: 'serve', dataDir });
    const oneCommit = createTestRepo({ prefix: 'cra-one-commit-' });
    const bare = oneCommit.root;
    oneCommit.write('main.py', 'def main():\n    return 1\n');
    oneCommit.commit('Add the main entry point');
    try {
      const { runId } = await core.handlers['eval/start']({ repoPath: bare });
      const failure = await core.runs.wait(runId).then(
        () => null,
        (error: Error) => error.message,
      );
      expect(failure).toMatch(/^No qualifying commits/);
      // The page has a path and a commit count: no CLI flag may be named.
      expect(failure).not.toMatch(/--\w/);
      expect(failure).toContain('choose a repository whose history has such commits');
      await expect(core.handlers['eval/start']({ repoPath: 'some/relative/path' })).rejects.toMatchObject({ code: 'VALIDATION', message: expect.stringContaining('absolute path') });
    } finally {
      await core.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    }
    // The CLI keeps naming its flags.
    await expect(evaluateRepository({ dataDir: join(root, 'data-cli'), repoPath: bare })).rejects.toMatchObject({ message: expect.stringContaining('--tasks FILE') });
  });
});
