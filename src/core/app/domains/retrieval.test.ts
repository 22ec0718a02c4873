import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { retrievalRequests, type EventPayload, type RunProgress } from '../../../shared/contract';
import type { OllamaTestServer } from '../../testing/ollamaTestServer';
import { useChatFixture } from '../../testing/chatFixture';
import { createChatRepo } from '../../testing/chatRepo';

const fx = useChatFixture({
  // Five search seeds (not the default 20, which would take every file of this small repository as a seed).
  engineConfig: '\n[budget]\ncontext_window = 9000\nreserved_tokens = 1000\n[retrieval]\nsearch_seeds = 5\n',
  // Files that import app.py (a search hit) without a word of the task: tier-2 candidates scope judges.
  repo: () => {
    const repo = createChatRepo();
    repo.writeFiles({ 'cli.py': 'from app import main\n\nmain()\n', 'server.py': 'import app\n\n\ndef serve():\n    app.main()\n', 'worker.py': 'from app import main\n' });
    repo.commit('entry points');
    return repo;
  },
});
const { core } = fx;
let server: OllamaTestServer;
let repoId: string;
const TASK = 'Fix `load_config` in config.py: it crashes when the settings file is missing';

beforeAll(() => ({ server, repoId } = fx));
beforeEach(() => {
  // Scope keeps cli.py and nothing else it is asked about; every precision pass says yes.
  server.script.respond = (prompt) => {
    if (/^path: /m.test(prompt)) return { json: { answer: /path: cli\.py/.test(prompt) ? 'yes' : 'no' } };
    return { json: { answer: 'yes' } };
  };
});

/** Record what a retrieve run pushes: its judgments, its progress and its package. */
function record() {
  const judgments: Array<EventPayload<'retrieval/judgment'>> = [];
  const packages: Array<EventPayload<'retrieval/package'>> = [];
  const progress: RunProgress[] = [];
  const stops = [core.events.on('retrieval/judgment', (j) => judgments.push(j)), core.events.on('retrieval/package', (p) => packages.push(p)), core.events.on('run/progress', (p) => progress.push(p))];
  return { judgments, packages, progress, stop: () => stops.forEach((s) => s()) };
}

describe('retrieve domain (the Context inspector’s run)', () => {
  it('pushes each judgment with its logged call, reports done/total per stage, and gives every verdict its call', async () => {
    const seen = record();
    const { runId, taskId } = await core.handlers['retrieval/run']({ repoId, task: TASK, budget: { contextWindow: 6000, reservedTokens: 2000 } });
    await core.runs.wait(runId);
    seen.stop();

    const scope = seen.judgments.filter((j) => j.stage === 'scope');
    expect(scope.length).toBeGreaterThan(0);
    expect(scope.map((j) => j.done)).toEqual(scope.map((_, i) => i + 1));
    expect(scope.find((j) => j.item === 'cli.py')).toMatchObject({ verdict: 'yes', read: 'json', runId, taskId });
    expect(scope.filter((j) => j.item !== 'cli.py').every((j) => j.verdict === 'no')).toBe(true);
    expect(seen.judgments.some((j) => j.stage === 'precision_pass1' && /^(config|app|cli)\.py:/.test(j.item))).toBe(true);
    // The judge names the item it judged (not read back from the prompt): a file by its path, a symbol by its path and qualified name.
    expect(scope.find((j) => j.item === 'cli.py')).toMatchObject({ subjectKind: 'file', path: 'cli.py' });
    const symbols = seen.judgments.filter((j) => j.stage === 'precision_pass1');
    expect(symbols.length).toBeGreaterThan(0);
    for (const j of symbols) expect(j).toMatchObject({ subjectKind: 'symbol', path: expect.stringMatching(/\.py$/), symbol: expect.any(String), item: `${j.path}:${j.symbol}` });
    // Each judgment names the call the Logs page opens, in the repository's log, with the same stage.
    for (const j of seen.judgments) {
      const call = await core.handlers['logs/get']({ repoId, id: j.callId! });
      expect(call).toMatchObject({ runId, stage: j.stage });
    }

    const [pkg] = seen.packages;
    expect(pkg).toMatchObject({ runId, taskId, stages: ['scope', 'precision'] });
    expect(pkg!.package.budget.tokens).toBe(4000);
    const appVerdict = pkg!.verdicts!.find((v) => v.stage === 'scope' && v.subject === 'cli.py');
    expect(appVerdict).toMatchObject({ subjectKind: 'file', decision: 'included', verdict: 'yes', read: 'json', callId: scope.find((j) => j.item === 'cli.py')!.callId });
    expect(pkg!.verdicts!.filter((v) => v.verdict !== undefined)).toHaveLength(seen.judgments.length);
    // Counted from the judge's reports: one per judgment pushed (no call failed here).
    expect(pkg!.summary.judgments).toBe(seen.judgments.length);

    const last = seen.progress.filter((p) => p.runId === runId).at(-1)!;
    const steps = Object.fromEntries(last.steps!.map((s) => [s.id, s]));
    expect(steps.analysis?.status).toBe('done');
    expect(steps.scope).toMatchObject({ status: 'done', done: scope.length, total: scope.length });
    const passes = seen.judgments.filter((j) => j.stage.startsWith('precision')).length;
    expect(steps.precision).toMatchObject({ status: 'done', done: passes, total: passes });
    expect(steps.precision!.children!.map((c) => c.id)).toContain('precision_pass1');
  }, 30_000);

  it('runs only the stages it is given', async () => {
    const seen = record();
    const { runId } = await core.handlers['retrieval/run']({ repoId, task: TASK, stages: ['scope'] });
    await core.runs.wait(runId);
    seen.stop();
    expect(seen.judgments.length).toBeGreaterThan(0);
    expect(seen.judgments.every((j) => j.stage === 'scope')).toBe(true);
    expect(seen.packages[0]).toMatchObject({ stages: ['scope'] });
    // The budget defaults from the config: 9000 − 1000.
    expect(seen.packages[0]!.package.budget.tokens).toBe(8000);
  }, 30_000);

  it('stops on cancel with the judgments so far and no package', async () => {
    server.script.respond = () => ({ json: { answer: 'no' }, delayMs: 300 });
    const seen = record();
    const { runId } = await core.handlers['retrieval/run']({ repoId, task: TASK });
    await new Promise<void>((resolve) => {
      const stop = core.events.on('retrieval/judgment', () => {
        stop();
        resolve();
      });
    });
    await core.handlers['run/cancel']({ runId });
    await expect(core.runs.wait(runId)).rejects.toMatchObject({ code: 'CANCELLED' });
    seen.stop();
    expect(seen.judgments.length).toBeGreaterThanOrEqual(1);
    expect(seen.packages).toEqual([]);
    const runs = await core.handlers['run/list']({ includeFinished: true });
    expect(runs.find((r) => r.runId === runId)?.status).toBe('cancelled');
  }, 30_000);

  it('validates the stages and the budget forms before a run starts (the contract, once)', async () => {
    const input = retrievalRequests['retrieval/run'].input;
    const problem = (i: unknown) => input.safeParse(i).error?.issues[0]?.message;
    expect(problem({ repoId, task: 't', stages: [] })).toMatch(/stage list is empty/);
    expect(problem({ repoId, task: 't', stages: ['scope', 'scope'] })).toMatch(/twice/);
    expect(problem({ repoId, task: 't', stages: ['rerank'] })).toBe('"rerank" is not a retrieval stage; use one of routing, scope, similarity, precision, refilter');
    expect(problem({ repoId, task: 't', budget: 100, contextWindow: 200 })).toMatch(/give the budget once/);
    expect(problem({ repoId, task: 't', budget: { contextWindow: 200, reservedTokens: 200 } })).toBe('the reserved tokens (200) must be fewer than the context window (200): nothing would be left for context');
    expect(problem({ repoId, task: 't', budget: { tokens: 500, contextWindow: 200 } })).toMatch(/as tokens, or as contextWindow and reservedTokens, not both/);
    expect(input.parse({ repoId, task: 't', budget: { contextWindow: 200, reservedTokens: 100 }, stages: ['scope'] })).toMatchObject({ budget: { contextWindow: 200, reservedTokens: 100 }, stages: ['scope'] });
    // The old shapes, accepted for one release, arrive as the one shape, checked the same way.
    expect(input.parse({ repoId, task: 't', budget: 900 })).toMatchObject({ budget: { tokens: 900 } });
    expect(input.parse({ repoId, task: 't', budgetConfig: { contextWindow: 800, reservedTokens: 100 } })).toMatchObject({ budget: { contextWindow: 800, reservedTokens: 100 } });
    const twoFields = input.parse({ repoId, task: 't', contextWindow: 700 });
    expect(twoFields).toMatchObject({ budget: { contextWindow: 700 } });
    expect(twoFields).not.toHaveProperty('contextWindow');
    expect(problem({ repoId, task: 't', contextWindow: 200, reservedTokens: 200 })).toMatch(/reserved tokens \(200\) must be fewer than the context window \(200\)/);
  });
});
