import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MetaPlan } from '../../../shared/contract/plansRuns';
import { openDatabase } from '../../platform/db/open';
import { listWorktrees } from '../../platform/git';
import { solveRunDetail, solveRunDiffs } from './solveDiffs';
import type { ExecuteSolveInput } from './solveRun';
import { solveSessionFile } from './solveSession';
import { block, MUL, MUL_TEST, P1, P2, TWO_PARTS, type SolveScript } from '../../testing/solveFixture';
import { REPO_ID, useSolveHarness } from '../../testing/solveHarness';
import { repoPaths, worktreesDir } from '../../platform/layout';

const h = useSolveHarness();
const solve = (script: SolveScript, input: Partial<ExecuteSolveInput> = {}) => h.solve(script, input);
const raw = () => h.raw();
const userState = () => ({ status: h.fx.repo.git('status', '--porcelain'), staged: h.fx.repo.git('diff', '--cached'), head: h.fx.repo.git('rev-parse', 'HEAD'), math: readFileSync(join(h.fx.repo.root, 'lib/math.js'), 'utf8') });

describe('the solve orchestrator', () => {
  it('solves a two-part task end to end in dependency order, validating each step with the configured tests; the user tree (with uncommitted changes) is untouched', async () => {
    h.fx.repo.write('README.md', '# Tiny math\n\nwork in progress\n');
    h.fx.repo.write('notes.txt', 'untracked\n');
    h.fx.repo.git('add', 'notes.txt');
    const before = userState();
    try {
      const { outcome, transcript, id } = await solve(TWO_PARTS);
      expect(outcome).toMatchObject({ status: 'complete', completed: [{ partId: 'p1', stepId: 's1' }, { partId: 'p1', stepId: 's2' }, { partId: 'p2', stepId: 's1' }], notCompleted: [] });
      expect(outcome.files.sort()).toEqual(['lib/format.js', 'lib/math.js', 'test/math.test.js']);
      // p1 before p2 (p2 depends on it though listed first); an adjustment after every step.
      expect(transcript.passes).toEqual(['meta_plan', 'part_plan p1', 'implement p1/s1 #1', 'adjustment p1/s1', 'implement p1/s2 #1', 'adjustment p1/s2', 'part_plan p2', 'implement p2/s1 #1', 'adjustment p2/s1']);
      // Each pass sees only what it is handed: the part plan of p2 sees p1's diff.
      expect(transcript.prompts.find((p) => p.pass === 'part_plan p2')!.prompt).toContain('+function mul(a, b) {');
      expect(userState()).toEqual(before);
      expect(listWorktrees(worktreesDir(h.fx.dataDir))).toEqual([]);

      const db = raw();
      try {
        const detail = solveRunDetail(db, id, () => false);
        expect(detail.status).toBe('complete');
        expect(detail.passes.map((p) => `${p.type}:${p.status}`)).toEqual(['meta_plan:succeeded', 'part_plan:succeeded', 'step_implement:succeeded', 'adjustment:succeeded', 'step_implement:succeeded', 'adjustment:succeeded', 'part_plan:succeeded', 'step_implement:succeeded', 'adjustment:succeeded']);
        const validation = detail.passes[2]!.validation!;
        expect(validation).toMatchObject({ ok: true, kind: 'commands', checks: [{ name: 'test', command: 'node --test', ok: true, exitCode: 0 }] });
        expect(validation.checks[0]!.output).toContain('# pass 1');
        expect(detail.parts.map((p) => `${p.id}:${p.status}:${p.steps.map((s) => s.id).join(',')}`)).toEqual(['p1:succeeded:s1,s2', 'p2:succeeded:s1']);
        // Every pass has its task_runs row, and its model calls carry that run id.
        const linked = db.prepare(`select count(*) from orchestrator_passes p join task_runs t on t.id = p.task_run_id where p.orchestrator_run_id = ? and t.status = 'done'`).pluck().get(id);
        expect(linked).toBe(9);
        const stages = db.prepare(`select m.stage from model_calls m join orchestrator_passes p on p.task_run_id = m.run_id where p.orchestrator_run_id = ? order by m.id`).pluck().all(id) as string[];
        const judged = (s: string) => s === 'scope' || s.startsWith('precision');
        expect(stages.filter((s) => !judged(s))).toEqual(['plan', 'plan', 'execute', 'plan', 'execute', 'plan', 'plan', 'execute', 'plan']);
        // Retrieval ran the pipeline (scope, precision) for each of the six passes that read context: its
        // judgments carry the pass's run id, its decisions too, and its session was archived under it.
        expect(stages.filter(judged).length).toBeGreaterThan(0);
        const retrieving = detail.passes.filter((p) => p.type !== 'adjustment');
        expect(retrieving).toHaveLength(6);
        for (const p of retrieving) {
          expect(db.prepare("select count(*) from retrieval_decisions where run_id = ? and stage = 'precision_pass1'").pluck().get(p.taskRunId)).toBeGreaterThan(0);
          expect(db.prepare('select count(*) from session_archives where run_id = ?').pluck().get(p.taskRunId)).toBe(1);
        }
        // The implement pass saw its plan file (given with the step: tier 0), whole where precision kept none of its symbols.
        const implement = detail.passes.find((p) => p.type === 'step_implement')!;
        expect(implement.context!.package.files[0]).toMatchObject({ path: 'lib/math.js', tier: 0, reasons: [{ kind: 'plan-file' }] });
        // The session is archived into the raw DB at the end, its file deleted.
        expect(db.prepare('select count(*) from session_archives where run_id = ?').pluck().get(id)).toBe(1);
        expect(existsSync(solveSessionFile(repoPaths(h.fx.dataDir, REPO_ID).sessions, id))).toBe(false);

        const diffs = solveRunDiffs(db, id);
        expect(diffs.headCommit).toBe(before.head.trim());
        expect(diffs.steps.map((s) => `${s.partId}/${s.stepId}`)).toEqual(['p1/s1', 'p1/s2', 'p2/s1']);
        expect(diffs.steps[0]!.diff).toContain('+function mul(a, b) {');
        expect(diffs.steps[0]!.diff).not.toContain('formatProduct');
        expect(diffs.cumulative).toContain('+function formatProduct(a, b) {');
      } finally {
        db.close();
      }
    } finally {
      h.fx.repo.git('reset', '-q', '--hard');
      h.fx.repo.git('clean', '-fdq');
    }
  }, 60_000);

  it('uses an adjustment that changes the remaining steps: the replaced step never runs, the new one does', async () => {
    const script: SolveScript = {
      metaPlan: { task_summary: 'mul', parts: [{ id: 'p1', title: 'Multiply', description: 'mul', files: ['lib/math.js'], depends_on: [] }] },
      partPlans: { p1: P1 },
      adjustments: { 'p1/s1': { rationale: 'mul landed; test it together with add in one new test file instead', remaining_steps: [{ id: 's3', description: 'New test file test/mul.test.js', files: ['test/mul.test.js'], expected_outcome: '' }] } },
      edits: { 'p1/s1': MUL, 'p1/s3': block('test/mul.test.js', '', "const test = require('node:test');\nconst assert = require('node:assert');\nconst { mul } = require('../lib/math');\n\ntest('mul', () => assert.strictEqual(mul(4, 5), 20));") },
    };
    const { outcome, transcript, id } = await solve(script);
    expect(outcome.status).toBe('complete');
    expect(outcome.completed).toEqual([{ partId: 'p1', stepId: 's1' }, { partId: 'p1', stepId: 's3' }]);
    expect(transcript.passes).toEqual(['meta_plan', 'part_plan p1', 'implement p1/s1 #1', 'adjustment p1/s1', 'implement p1/s3 #1', 'adjustment p1/s3']);
    const db = raw();
    try {
      const adjustment = solveRunDetail(db, id, () => false).passes.find((p) => p.type === 'adjustment')!;
      expect(adjustment.output).toMatchObject({ changes: { added: ['s3'], removed: ['s2'], modified: [] } });
    } finally {
      db.close();
    }
  }, 60_000);

  it('turns a failing test with evidence into a RefinementRequest and succeeds on the refined attempt', async () => {
    const script: SolveScript = {
      metaPlan: { task_summary: 'mul', parts: [{ id: 'p1', title: 'Multiply', description: 'mul', files: ['lib/math.js'], depends_on: [] }] },
      partPlans: { p1: { steps: [P1.steps[1]!], rationale: 'test first' } },
      // Attempt 1 tests a mul that does not exist; the refined attempt adds it too.
      edits: { 'p1/s2': [MUL_TEST, `${MUL_TEST}\n${MUL}`] },
    };
    const { outcome, transcript, id } = await solve(script);
    expect(outcome.status).toBe('complete');
    expect(transcript.passes).toEqual(['meta_plan', 'part_plan p1', 'implement p1/s2 #1', 'implement p1/s2 #2', 'adjustment p1/s2']);
    const retry = transcript.prompts.find((p) => p.pass === 'implement p1/s2 #2')!.prompt;
    expect(retry).toContain('## Your previous attempt failed');
    expect(retry).toContain('math.mul is not a function');
    const db = raw();
    try {
      const passes = solveRunDetail(db, id, () => false).passes.filter((p) => p.type === 'step_implement');
      expect(passes.map((p) => `${p.attempt}:${p.status}`)).toEqual(['1:failed', '2:succeeded']);
      expect(passes[0]!.validation!.checks[0]!.output).toContain('not ok');
      expect(passes[0]!.output).toMatchObject({ refinementRequest: { missing_symbols: ['mul'], missing_tests: ['mul'] } });
      expect(passes[1]!.output).toMatchObject({ refinement: { missing_symbols: ['mul'] } });
      // The refined attempt re-entered the first attempt's retrieval session (refineContext): the evidence is logged under its run.
      expect(db.prepare("select subject, decision from retrieval_decisions where run_id = ? and stage = 'refinement' order by id").all(passes[1]!.taskRunId)).toEqual(expect.arrayContaining([{ subject: 'symbol mul', decision: 'unresolved' }]));
      expect(db.prepare("select count(*) from retrieval_decisions where run_id = ? and stage = 'refinement'").pluck().get(passes[0]!.taskRunId)).toBe(0);
      // The failed attempt's edits were undone: the step's diff is the refined attempt's alone.
      expect(passes[1]!.diff).toContain('+function mul(a, b) {');
    } finally {
      db.close();
    }
  }, 60_000);

  it('ends partial when a part fails after max_step_attempts: what completed and what did not, the dependent part skipped', async () => {
    const meta: MetaPlan = {
      task_summary: 'three parts',
      parts: [
        { id: 'p1', title: 'Multiply', description: 'mul', files: ['lib/math.js'], depends_on: [] },
        { id: 'p2', title: 'Format', description: 'formatProduct', files: ['lib/format.js'], depends_on: ['p1'] },
        { id: 'p3', title: 'Readme', description: 'mention mul', files: ['README.md'], depends_on: ['p2'] },
      ],
    };
    const script: SolveScript = {
      metaPlan: meta,
      partPlans: { p1: { steps: [P1.steps[0]!], rationale: '' }, p2: P2, p3: { steps: [{ id: 's1', description: 'readme', files: ['README.md'], expected_outcome: '' }], rationale: '' } },
      edits: { 'p1/s1': MUL, 'p2/s1': block('lib/format.js', 'function nowhere() {}', 'x') },
    };
    const before = userState();
    const { outcome, transcript } = await solve(script);
    expect(outcome.status).toBe('partial');
    expect(outcome.completed).toEqual([{ partId: 'p1', stepId: 's1' }]);
    expect(outcome.notCompleted).toEqual([
      { partId: 'p2', stepId: 's1', reason: expect.stringMatching(/^the edits did not apply: edit block 1 \(lib\/format\.js\): the SEARCH text was not found/) },
      { partId: 'p3', stepId: null, reason: 'depends on part p2, which did not succeed' },
    ]);
    // [orchestrator].max_step_attempts = 2: exactly two tries, no adjustment after a failed step.
    expect(transcript.passes).toEqual(['meta_plan', 'part_plan p1', 'implement p1/s1 #1', 'adjustment p1/s1', 'part_plan p2', 'implement p2/s1 #1', 'implement p2/s1 #2']);
    expect(outcome.files).toEqual(['lib/math.js']);
    expect(userState()).toEqual(before);
  }, 60_000);

  it('sweeps the session files killed runs left once, at its first retrieval, not at every pass (a sweep opens every session file, the run\'s own open ones too)', async () => {
    const sessions = repoPaths(h.fx.dataDir, REPO_ID).sessions;
    const dead = spawnSync(process.execPath, ['-e', '0']).pid as number;
    // What a killed process leaves: a retrieval session whose owner is gone.
    const leave = (taskId: string) => {
      const db = openDatabase(join(sessions, `${taskId}.sqlite`), { journal: 'rollback' });
      db.exec('create table retrieval_state (key text primary key, value_json text not null, updated_at text not null)');
      db.prepare('insert into retrieval_state values (?, ?, ?)').run('owner', JSON.stringify({ pid: dead, runId: `killed-${taskId}` }), new Date().toISOString());
      db.close();
    };
    const left = () => readdirSync(sessions).filter((f) => f.startsWith('left-'));
    const archived = () => {
      const db = raw();
      try {
        return db.prepare("select run_id from session_archives where run_id like 'killed-left-%' order by id").pluck().all();
      } finally {
        db.close();
      }
    };
    const script: SolveScript = {
      metaPlan: { task_summary: 'mul', parts: [{ id: 'p1', title: 'Multiply', description: 'mul', files: ['lib/math.js'], depends_on: [] }] },
      partPlans: { p1: { steps: [P1.steps[0]!], rationale: '' } },
      edits: { 'p1/s1': MUL },
    };
    leave('left-before');
    let planted = false;
    // Left while the run is at its second pass (the part plan), after the meta-plan's retrieval swept.
    const onProgress = (update: { phase: string }) => {
      if (planted || !update.phase.startsWith('part plan')) return;
      planted = true;
      leave('left-during');
    };
    const first = await solve(script, { onProgress });
    expect(first.outcome.status).toBe('complete');
    expect(first.transcript.passes).toEqual(['meta_plan', 'part_plan p1', 'implement p1/s1 #1', 'adjustment p1/s1']);
    expect(planted).toBe(true);
    expect(left()).toEqual(['left-during.sqlite']);
    expect(archived()).toEqual(['killed-left-before']);
    // The next run sweeps it.
    await solve(script);
    expect(left()).toEqual([]);
    expect(archived()).toEqual(['killed-left-before', 'killed-left-during']);
  }, 60_000);

  it('fails with the problems when the meta-plan is invalid twice, and refuses a given meta-plan with a cycle before starting', async () => {
    const { outcome, transcript } = await solve({ metaPlan: 'no plan today', edits: {} });
    expect(outcome).toMatchObject({ status: 'failed', completed: [], notCompleted: [{ partId: '', stepId: null, reason: expect.stringContaining('the meta-plan was invalid 2 times') }] });
    expect(transcript.passes).toEqual(['meta_plan', 'meta_plan']);
    const cyclic: MetaPlan = { task_summary: 'x', parts: [{ id: 'a', title: 'a', description: 'a', files: [], depends_on: ['b'] }, { id: 'b', title: 'b', description: 'b', files: [], depends_on: ['a'] }] };
    await expect(solve({ edits: {} }, { metaPlan: cyclic })).rejects.toThrow(/the dependencies form a cycle \(a → b → a\)/);
  }, 60_000);
});
