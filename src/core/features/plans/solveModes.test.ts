import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Plan } from '../../../shared/contract/plans';
import { isCancellation } from '../../../shared/contract';
import { listWorktrees } from '../../platform/git';
import { solveRunDetail, solveRunDiffs } from './solveDiffs';
import { worktreeIsLive } from './solveRecords';
import { solveSessionFile, SqliteSolveSession } from './solveSession';
import { block, META, MUL, P1, P2, TWO_PARTS, solveResponder } from '../../testing/solveFixture';
import { REPO_ID, useSolveHarness } from '../../testing/solveHarness';
import { repoPaths, worktreesDir } from '../../platform/layout';

const h = useSolveHarness();
const userState = () => ({ status: h.fx.repo.git('status', '--porcelain'), staged: h.fx.repo.git('diff', '--cached'), head: h.fx.repo.git('rev-parse', 'HEAD'), readme: readFileSync(join(h.fx.repo.root, 'README.md'), 'utf8') });

const PLAN: Plan = {
  task_summary: 'Add mul to lib/math.js',
  affected_files: [{ path: 'lib/math.js', role: 'modify', changes: [{ symbol: 'mul', action: 'add', description: 'multiply two numbers, exported beside add', depends_on: [], depended_by: [] }] }],
  execution_order: ['lib/math.js'],
  rationale: 'one function',
};
const MUL_DIFF = '```diff\n--- a/lib/math.js\n+++ b/lib/math.js\n@@ -2,4 +2,8 @@\n   return a + b;\n }\n \n-module.exports = { add };\n+function mul(a, b) {\n+  return a * b;\n+}\n+\n+module.exports = { add, mul };\n```';

describe('solve with --plan (implement mode)', () => {
  it('runs one implement pass: the plan files are tier 0 of the context, a unified diff is applied, changed files are syntax-checked when no validation is configured', async () => {
    const broken = '```diff\n--- a/lib/math.js\n+++ b/lib/math.js\n@@ -4,2 +4,3 @@\n \n-module.exports = { add };\n+function mul(a, b) {\n+module.exports = { add, mul };\n```';
    const { outcome, transcript, id } = await h.solve({ edits: { 'plan/implement': [broken, MUL_DIFF] } }, { plan: PLAN, task: 'Add mul', config: h.config('', false) });
    expect(outcome).toMatchObject({ status: 'complete', completed: [{ partId: 'plan', stepId: 'implement' }], files: ['lib/math.js'] });
    expect(transcript.passes).toEqual(['implement plan/implement #1', 'implement plan/implement #2']);
    const prompt = transcript.prompts[0]!.prompt;
    expect(prompt).toMatch(/## lib\/math\.js\n\ntier 0 · in the plan/);
    expect(prompt).toContain('lib/math.js: add mul — multiply two numbers, exported beside add');
    const db = h.raw();
    try {
      const detail = solveRunDetail(db, id, () => false);
      expect(detail.mode).toBe('plan');
      expect(detail.passes.map((p) => `${p.type}:${p.status}:${p.validation?.kind}`)).toEqual(['implement:failed:syntax', 'implement:succeeded:syntax']);
      expect(detail.passes[0]!.validation!.checks[0]!.output).toContain('SyntaxError: lib/math.js does not parse as javascript');
      expect(detail.cumulativeDiff).toContain('+function mul(a, b) {');
    } finally {
      db.close();
    }
  }, 60_000);

  it("starts from the user's uncommitted changes when asked, without writing the user's tree or index", async () => {
    h.fx.repo.write('README.md', '# Tiny math\n\nDraft: add, mul\n');
    h.fx.repo.write('scratch/todo.txt', 'untracked\n');
    h.fx.repo.remove('lib/format.js');
    const before = userState();
    try {
      const readmeEdit = block('README.md', 'Draft: add, mul', 'Functions: add, mul');
      const { outcome, id } = await h.solve({ edits: { 'plan/implement': readmeEdit } }, { plan: { ...PLAN, affected_files: [{ ...PLAN.affected_files[0]!, path: 'README.md' }], execution_order: ['README.md'] }, task: 'Doc', includeUncommitted: true, config: h.config('', false) });
      expect(outcome.status).toBe('complete');
      expect(userState()).toEqual(before);
      const db = h.raw();
      try {
        const diffs = solveRunDiffs(db, id);
        expect(diffs.startCommit).not.toBe(diffs.headCommit);
        expect(diffs.cumulative).toContain('-Draft: add, mul\n+Functions: add, mul');
        expect(diffs.cumulative).not.toContain('todo.txt');
        // The snapshot holds the untracked file and not the deleted one.
        expect(h.fx.repo.git('cat-file', '-p', `${diffs.startCommit}:scratch/todo.txt`)).toBe('untracked\n');
        expect(() => h.fx.repo.git('cat-file', '-e', `${diffs.startCommit}:lib/format.js`)).toThrow();
        // Review reads the diff against startCommit only: no per-file base hashes are computed for it.
        expect(diffs).not.toHaveProperty('baseHashes');
      } finally {
        db.close();
      }
    } finally {
      h.fx.repo.git('checkout', '-q', '--', 'README.md', 'lib/format.js');
      h.fx.repo.git('clean', '-fdq');
    }
  }, 60_000);
});

describe('model-written paths', () => {
  it.each([
    ['out of the repository', '../escaped.js', /leads outside the repository/],
    ['into .git', '.git/hooks/post-commit', /inside a \.git folder/],
  ])('a step writing %s fails its attempts with the reason and writes nothing anywhere', async (_name, path, reason) => {
    const before = userState();
    const { outcome } = await h.solve({ edits: { 'plan/implement': block(path, '', 'bad') } }, { plan: PLAN, task: 'Add mul', config: h.config('', false) });
    expect(outcome).toMatchObject({ status: 'failed', completed: [], notCompleted: [{ partId: 'plan', stepId: 'implement', reason: expect.stringMatching(reason) }], files: [] });
    expect(existsSync(join(h.fx.repo.root, '..', 'escaped.js'))).toBe(false);
    expect(existsSync(join(h.fx.repo.root, '.git', 'hooks', 'post-commit'))).toBe(false);
    expect(userState()).toEqual(before);
  }, 60_000);
});

describe('cancel and resume', () => {
  it('a run cancelled mid-way is resumed from its last completed step: no completed pass runs again, the adjustment it missed does', async () => {
    const controller = new AbortController();
    const id = 'solve-resume-1';
    const first = solveResponder(TWO_PARTS);
    const before = userState();
    const run = h.solve(TWO_PARTS, { solveRunId: id, signal: controller.signal });
    // h.solve installs its own responder; put the aborting one back before the first call lands.
    let statusWhileRunning = '';
    h.server.script.respond = (prompt) => {
      const reply = first.respond(prompt);
      if (first.transcript.passes.at(-1) === 'adjustment p1/s1') {
        const live = h.raw();
        try {
          // Another reader (the app beside the CLI) sees the run live: its worktree's owner is alive.
          statusWhileRunning = solveRunDetail(live, id, (row) => worktreeIsLive(h.fx.dataDir, row)).status;
        } finally {
          live.close();
        }
        controller.abort();
        return { ...reply, delayMs: 2000 };
      }
      return reply;
    };
    const error = await run.catch((e: unknown) => e);
    expect(isCancellation(error)).toBe(true);
    expect(statusWhileRunning).toBe('running');
    expect(first.transcript.passes).toEqual(['meta_plan', 'part_plan p1', 'implement p1/s1 #1', 'adjustment p1/s1']);
    expect(listWorktrees(worktreesDir(h.fx.dataDir))).toEqual([]);
    expect(userState()).toEqual(before);
    // The session keeps what a resume needs, under the keys of docs/design.md, Solve records and session keys.
    const session = SqliteSolveSession.open(solveSessionFile(repoPaths(h.fx.dataDir, REPO_ID).sessions, id));
    try {
      expect(session.keys()).toEqual(['cumulative_diff', 'meta_plan', 'orchestrator_progress', 'part_plan:p1', 'step_result:p1:s1']);
      expect(session.get<string>('cumulative_diff')).toContain('+function mul(a, b) {');
      expect(session.get<{ status: string }>('step_result:p1:s1')).toMatchObject({ status: 'succeeded', attempts: 1 });
    } finally {
      session.close();
    }
    let db = h.raw();
    try {
      expect(solveRunDetail(db, id, () => false).status).toBe('cancelled');
    } finally {
      db.close();
    }

    const { outcome, transcript } = await h.solve(TWO_PARTS, { solveRunId: id, resume: true });
    expect(transcript.passes).toEqual(['adjustment p1/s1', 'implement p1/s2 #1', 'adjustment p1/s2', 'part_plan p2', 'implement p2/s1 #1', 'adjustment p2/s1']);
    expect(outcome).toMatchObject({ status: 'complete', completed: [{ partId: 'p1', stepId: 's1' }, { partId: 'p1', stepId: 's2' }, { partId: 'p2', stepId: 's1' }] });
    expect(userState()).toEqual(before);
    db = h.raw();
    try {
      const detail = solveRunDetail(db, id, () => false);
      expect(detail.status).toBe('complete');
      // The cancelled adjustment is recorded as such; the replayed step's diff is in the cumulative one.
      expect(detail.passes.filter((p) => p.type === 'adjustment').map((p) => p.status)).toEqual(['skipped', 'succeeded', 'succeeded', 'succeeded']);
      expect(detail.cumulativeDiff).toContain('+function mul(a, b) {');
      expect(detail.cumulativeDiff).toContain('+function formatProduct(a, b) {');
      await expect(h.solve(TWO_PARTS, { solveRunId: id, resume: true })).rejects.toThrow(/already ended \(complete\)/);
      expect(solveRunDetail(db, id, () => false).status).toBe('complete');
    } finally {
      db.close();
    }
  }, 60_000);

  it('refuses to resume a run that does not exist', async () => {
    await expect(h.solve({ metaPlan: META, partPlans: { p1: P1, p2: P2 }, edits: { 'p1/s1': MUL } }, { solveRunId: 'solve-none', resume: true })).rejects.toThrow(/No solve run solve-none/);
  });
});
