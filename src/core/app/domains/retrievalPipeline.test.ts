import { existsSync, readdirSync } from 'node:fs';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EventPayload, RunProgress } from '../../../shared/contract';
import { retrievalRequests } from '../../../shared/contract/retrieval';
import { dispatch } from '../contract/dispatch';
import { PRECISION_QUESTIONS } from '../../features/retrieval/stages/precision';
import type { OllamaTestServer } from '../../testing/ollamaTestServer';
import { useChatFixture } from '../../testing/chatFixture';
import { repoPaths } from '../../platform/layout';

// The app's path into the pipeline: the retrieval/run request through a real engine, the loopback
// model server and a real indexed git repository.

const fx = useChatFixture({ engineConfig: '' });
const { core } = fx;
let server: OllamaTestServer;
let repoId: string;
const TASK = 'Fix `load_config` in config.py: it crashes when the settings file is missing';

beforeAll(() => ({ server, repoId } = fx));
beforeEach(() => {
  server.script.respond = () => ({ json: { answer: 'yes' } });
});

describe('retrieval/run', () => {
  it('reports judgment progress per stage (done of total), takes plan files as tier 0, and emits the package with its config and usage', async () => {
    const progress: RunProgress[] = [];
    const packages: Array<EventPayload<'retrieval/package'>> = [];
    const stops = [core.events.on('run/progress', (p) => progress.push(p)), core.events.on('retrieval/package', (p) => packages.push(p))];
    const { runId, taskId } = await core.handlers['retrieval/run']({ repoId, task: TASK, stages: ['scope', 'precision'], budget: { contextWindow: 12_000, reservedTokens: 2000 }, planFiles: ['mailer.py'] });
    await core.runs.wait(runId);
    stops.forEach((s) => s());
    const mine = progress.filter((p) => p.runId === runId);
    // Each stage says it started; each pass of judgments ends with a complete report (done = total).
    expect(mine.map((p) => p.phase)).toEqual(expect.arrayContaining(['task analysis', 'scope', 'precision', 'precision_pass1', 'precision_pass2']));
    for (const pass of ['precision_pass1', 'precision_pass2']) {
      const last = mine.filter((p) => p.phase === pass).at(-1)!;
      expect(last.total, pass).toBeGreaterThan(0);
      expect(last.done).toBe(last.total);
    }
    expect(packages).toHaveLength(1);
    const { package: pkg, summary } = packages[0]!;
    expect(pkg.taskId).toBe(taskId);
    expect(pkg.files[0]).toMatchObject({ path: 'mailer.py', tier: 0, reasons: [{ kind: 'plan-file', detail: {} }] });
    expect(summary).toMatchObject({ budget: 10_000, config: { stages: ['scope', 'precision'], contextWindow: 12_000, reservedTokens: 2000 } });
    expect(summary.usage!.calls).toBe(summary.judgments);
    expect(summary.usage!.promptTokens).toBeGreaterThan(0);
    // The session was archived and removed when the run ended.
    expect(readdirSync(repoPaths(fx.dataDir, repoId).sessions)).toEqual([]);
  }, 60_000);

  it('refuses a bad stage list before a run starts, and both budget forms at once in the contract', async () => {
    const refused = await dispatch(core.handlers, 'retrieval/run', { repoId, task: TASK, stages: ['scope', 'ranking'] });
    expect(refused).toMatchObject({ ok: false, error: { code: 'VALIDATION', message: 'Invalid input for retrieval/run: stages.1: "ranking" is not a retrieval stage; use one of routing, scope, similarity, precision, refilter.' } });
    expect(server.requests).toEqual([]);
    const parsed = retrievalRequests['retrieval/run'].input.safeParse({ repoId, task: TASK, budget: 100, budgetConfig: { contextWindow: 200, reservedTokens: 10 } });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe('give the budget once: budget (budgetConfig and contextWindow/reservedTokens are its old shapes)');
  });

  it('a cancelled run emits no package and leaves no session file', async () => {
    let runId = '';
    server.script.respond = (prompt) => {
      if (/symbol: /.test(prompt)) {
        core.runs.cancel(runId);
        return { fault: 'stall' };
      }
      return { json: { answer: 'yes' } };
    };
    const packages: unknown[] = [];
    const stop = core.events.on('retrieval/package', (p) => packages.push(p));
    ({ runId } = await core.handlers['retrieval/run']({ repoId, task: TASK, stages: ['scope', 'precision'] }));
    await core.runs.wait(runId).catch(() => undefined);
    stop();
    expect(core.runs.list().find((r) => r.runId === runId)?.status).toBe('cancelled');
    expect(packages).toEqual([]);
    const sessions = repoPaths(fx.dataDir, repoId).sessions;
    expect(existsSync(sessions) ? readdirSync(sessions) : []).toEqual([]);
    expect(server.requests.some((r) => JSON.stringify(r.body).includes(PRECISION_QUESTIONS.precision_pass1))).toBe(true);
  }, 60_000);
});
