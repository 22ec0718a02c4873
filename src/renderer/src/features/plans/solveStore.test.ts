import { beforeEach, describe, expect, it } from 'vitest';
import type { SandboxStatus } from '../../../../shared/contract';
import { setClientForTests, type Client } from '../../lib/client';
import { useSolveStore } from './solveStore';

/** A client whose plans/sandbox answer the test sets; it records what the store asks for. */
function client(asked: Array<{ method: string; input: unknown }>, sandbox: () => SandboxStatus): Client {
  return {
    call: (async (method: string, input: unknown) => {
      asked.push({ method, input });
      if (method === 'plans/sandbox') return sandbox();
      if (method === 'plans/solve') return { run: { runId: 'solve-task-1', kind: 'solve', subject: { repoId: 'shop-1' }, title: 'Solve: Add a flag', status: 'running', startedAt: '2026-01-01T00:00:00Z' }, runId: 'solve-task-1', solveRunId: 'solve-1' };
      if (method === 'plans/listRuns') return { runs: [] };
      if (method === 'plans/getRun') throw Object.assign(new Error('starting'), { code: 'NOT_FOUND' });
      if (method === 'config/set') return { files: [], values: {} };
      throw new Error(`unexpected ${method}`);
    }) as Client['call'],
    subscribe: () => () => undefined,
  };
}

const NO_SANDBOX: SandboxStatus = { sandbox: null, commandsConfigured: true, allowUnsandboxed: false, wouldRefuse: true, message: 'No sandbox here: validation would run with your rights.' };

describe('solve store: the sandbox question', () => {
  let asked: Array<{ method: string; input: unknown }>;
  let status: SandboxStatus;
  beforeEach(() => {
    asked = [];
    status = NO_SANDBOX;
    setClientForTests(client(asked, () => status));
    useSolveStore.setState({ repoId: 'shop-1', sandboxQuestion: null, errors: {}, taskRuns: {} });
  });

  it('asks before a run that would be refused, and starts nothing until answered', async () => {
    await useSolveStore.getState().start({ task: 'Add a flag' });
    expect(useSolveStore.getState().sandboxQuestion).toEqual({ message: NO_SANDBOX.message, pending: { task: 'Add a flag' } });
    expect(asked.map((a) => a.method)).toEqual(['plans/sandbox']);
  });

  it('"Don’t run" starts nothing and saves nothing', async () => {
    await useSolveStore.getState().start({ task: 'Add a flag' });
    await useSolveStore.getState().answerSandbox(false);
    expect(useSolveStore.getState().sandboxQuestion).toBeNull();
    expect(asked.map((a) => a.method)).toEqual(['plans/sandbox']);
  });

  it('"Allow and run" saves the consent in the settings, then runs the waiting task', async () => {
    await useSolveStore.getState().start({ task: 'Add a flag' });
    status = { ...NO_SANDBOX, allowUnsandboxed: true, wouldRefuse: false };
    await useSolveStore.getState().answerSandbox(true);
    expect(asked).toContainEqual({ method: 'config/set', input: { edits: [{ path: ['sandbox', 'allow_unsandboxed_validation'], value: true }] } });
    expect(asked.filter((a) => a.method === 'plans/solve')).toEqual([{ method: 'plans/solve', input: { repoId: 'shop-1', task: 'Add a flag' } }]);
    expect(useSolveStore.getState().sandboxQuestion).toBeNull();
  });

  it('does not ask where validation runs in a sandbox', async () => {
    status = { sandbox: 'bwrap', commandsConfigured: true, allowUnsandboxed: false, wouldRefuse: false, message: 'sandboxed' };
    await useSolveStore.getState().start({ task: 'Add a flag' });
    expect(useSolveStore.getState().sandboxQuestion).toBeNull();
    expect(asked.map((a) => a.method)).toContain('plans/solve');
  });
});
