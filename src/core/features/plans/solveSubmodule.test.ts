import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRepo, type TestRepo } from '../../testing/gitRepo';
import { block, MUL, P1, type SolveScript } from '../../testing/solveFixture';
import { useSolveHarness } from '../../testing/solveHarness';
import { solveRunDetail } from './solveDiffs';
import { worktreesDir } from '../../platform/layout';

/*
 * A model edit inside a submodule of the repository (issue #22): git refuses to stage it ("is in
 * submodule"), which ended the whole run as interrupted. The attempt is refused with the reason,
 * like an edit that does not apply, and the run goes on.
 */

const h = useSolveHarness();
let inner: TestRepo;

beforeAll(() => {
  inner = createTestRepo({ prefix: 'cra-solve-inner-' });
  inner.write('lib.js', 'module.exports = 1;\n');
  inner.commit('inner');
  h.fx.repo.git('-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', inner.root, 'vendor/inner');
  h.fx.repo.commit('vendor/inner as a submodule');
});
afterAll(() => inner.cleanup());

const userState = () => ({ status: h.fx.repo.git('status', '--porcelain'), head: h.fx.repo.git('rev-parse', 'HEAD'), inner: h.fx.repo.git('-C', 'vendor/inner', 'rev-parse', 'HEAD') });

describe('an edit inside a submodule', () => {
  it('is refused with the reason and the step retried; the run completes instead of ending interrupted', async () => {
    const newInSubmodule = block('vendor/inner/added.js', '', 'module.exports = 3;');
    const script: SolveScript = {
      metaPlan: { task_summary: 'mul', parts: [{ id: 'p1', title: 'Multiply', description: 'mul', files: ['lib/math.js'], depends_on: [] }] },
      partPlans: { p1: { steps: [P1.steps[0]!], rationale: '' } },
      edits: { 'p1/s1': [newInSubmodule + MUL, MUL] },
    };
    const before = userState();
    const { outcome, transcript, id } = await h.solve(script);
    expect(outcome).toMatchObject({ status: 'complete', completed: [{ partId: 'p1', stepId: 's1' }], notCompleted: [] });
    expect(outcome.files).toEqual(['lib/math.js']);
    expect(transcript.passes).toEqual(['meta_plan', 'part_plan p1', 'implement p1/s1 #1', 'implement p1/s1 #2', 'adjustment p1/s1']);
    // The retry told the model why.
    expect(transcript.prompts.find((p) => p.pass === 'implement p1/s1 #2')!.prompt).toContain('vendor/inner/added.js is inside the submodule vendor/inner (a repository of its own)');
    const db = h.raw();
    try {
      const detail = solveRunDetail(db, id, () => false);
      expect(detail.status).toBe('complete');
      expect(detail.passes.filter((p) => p.type === 'step_implement').map((p) => [p.status, p.error ?? null])).toEqual([
        ['failed', "the edits did not apply: vendor/inner/added.js is inside the submodule vendor/inner (a repository of its own): edits inside a submodule are refused; change this repository's own files"],
        ['succeeded', null],
      ]);
    } finally {
      db.close();
    }
    expect(userState()).toEqual(before);
    expect(readdirSync(worktreesDir(h.fx.dataDir)).filter((name) => name !== '.objects')).toEqual([]); // .objects: kept snapshot objects, not a checkout

    // A step whose every attempt edits the submodule fails with the reason; the run still ends on its own.
    const refused = await h.solve({ ...script, edits: { 'p1/s1': newInSubmodule } });
    expect(refused.outcome.notCompleted).toEqual([{ partId: 'p1', stepId: 's1', reason: expect.stringContaining('vendor/inner/added.js is inside the submodule vendor/inner') }]);
    expect(userState()).toEqual(before);
  }, 120_000);
});
