import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelCheckResult } from '../../../shared/contract';
import { OllamaTestServer } from '../../testing/ollamaTestServer';
import { REAL_GGUF_NAME } from '../../testing/realGguf';
import { createTempCore } from '../../testing/tempCore';
import { ModelStore } from '../../platform/llm/builtin/modelStore';
import { realGgufPath } from '../../testing/realGguf';
import { auc, pickBalanced } from './modelCheck';
import { buildShopRepo, SHOP_TASKS } from '../../testing/bootstrapFixture';

/** The scope labels of the shop's history (bootstrap.test.ts asserts them): task → files labelled yes. */
const NEEDED: Record<string, string[]> = {
  [SHOP_TASKS.limit]: ['shop/validate.py', 'shop/models.py'],
  [SHOP_TASKS.discount]: ['shop/orders.py', 'shop/pricing.py'],
  [SHOP_TASKS.report]: ['shop/report.py'],
};

/** A judge that knows the labels: yes exactly for the needed files (`invert`: the opposite). */
function scopeJudge(prompt: string, invert: boolean): 'yes' | 'no' {
  const task = Object.keys(NEEDED).find((t) => prompt.startsWith(`Task:\n${t}`));
  const path = /\npath: (\S+)/.exec(prompt)?.[1] ?? '';
  const needed = Boolean(task && NEEDED[task]!.includes(path));
  return needed !== invert ? 'yes' : 'no';
}

/** A plan for the limit task that passes the plan checks; for other tasks one that names a file the repository lacks. */
function planReply(prompt: string): unknown {
  const path = prompt.includes(SHOP_TASKS.limit) ? 'shop/validate.py' : 'shop/nowhere.py';
  const change = { symbol: 'clean_name', action: 'modify', description: 'Refuse long names', depends_on: [], depended_by: [] };
  return { task_summary: 'Limit names', affected_files: [{ path, role: 'modify', changes: [change] }], execution_order: [path], rationale: 'One check.' };
}

let base: string;
let shop: string;
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'cra-check-'));
  shop = buildShopRepo(join(base, 'shop'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('checking a model on the repository’s own history', () => {
  it('picks half yes and half no, spread over the list, and computes the AUC with ties as half', () => {
    const items = ['y1', 'n1', 'y2', 'n2', 'n3', 'n4', 'y3'].map((id) => ({ id, label: id.startsWith('y') ? ('yes' as const) : ('no' as const) }));
    expect(pickBalanced(items, 4).map((i) => i.id)).toEqual(['y1', 'y2', 'n1', 'n3']);
    expect(pickBalanced(items, 10).map((i) => i.id)).toHaveLength(7);
    expect(auc([{ score: 0.9, label: 'yes' }, { score: 0.1, label: 'no' }, { score: 0.5, label: 'yes' }, { score: 0.5, label: 'no' }])).toBe(0.875);
    expect(auc([{ score: 1, label: 'yes' }])).toBeNull();
  });

  it('reports the figures of a scripted judge exactly (perfect, then inverted), an unusable judge as default-deny, and stores one result per (stage, model, repository)', async () => {
    const server = await OllamaTestServer.start();
    server.install('qwen3:0.6b');
    server.install('judge:perfect');
    const temp = createTempCore();
    try {
      writeFileSync(join(temp.dataDir, 'config.toml'), `[models]\nreasoning = "judge:perfect"\nbase_url = "${server.url}"\n[models.overrides]\nprecision = "qwen3:0.6b"\n`);
      let invert = false;
      server.script.respond = (prompt) => {
        if (prompt.startsWith('## Task')) return { json: planReply(prompt) };
        if (prompt.startsWith('Task:')) return /\npath: /.test(prompt) ? { json: { answer: scopeJudge(prompt, invert) } } : { text: 'maybe' };
        return undefined;
      };
      const run = async (input: { stage?: 'scope' | 'precision'; n: number }) => {
        const { runId } = await temp.core.handlers['models/check']({ repoPath: shop, ...input });
        return ((await temp.core.runs.wait(runId)) as { results: ModelCheckResult[] }).results;
      };
      const [scope, precision, plan] = await run({ n: 6 });
      expect(scope).toMatchObject({ stage: 'scope', model: 'judge:perfect', n: 6, positives: 3, accuracy: 1, balancedAccuracy: 1, auc: 1, unusableRate: 0 });
      expect(scope!.p50LatencyMs).toBeGreaterThanOrEqual(0);
      expect(scope!.tokensPerSecond).toBeGreaterThan(0);
      // Every precision answer is "maybe": all default-denied, so right only on the no labels.
      expect(precision).toMatchObject({ stage: 'precision', model: 'qwen3:0.6b', n: 6, positives: 3, accuracy: 0.5, balancedAccuracy: 0.5, unusableRate: 1 });

      // The 3 qualifying commits planned once each: only the limit task's plan names files that exist.
      expect(plan).toMatchObject({ stage: 'plan', model: 'judge:perfect', n: 3, validPlanRate: 1 / 3, accuracy: null, auc: null });
      expect(plan!.unusableRate).toBeCloseTo(2 / 3, 10);

      invert = true;
      const [inverted] = await run({ stage: 'scope', n: 6 });
      expect(inverted).toMatchObject({ n: 6, accuracy: 0, balancedAccuracy: 0, auc: 0, unusableRate: 0 });
      // The latest result per (stage, model, repository), newest first: the inverted scope run replaced the first.
      const stored = (await temp.core.handlers['models/checks']({ repoPath: shop })).results;
      expect(stored.map((r) => [r.stage, r.model, r.accuracy])).toEqual([['scope', 'judge:perfect', 0], ['plan', 'judge:perfect', null], ['precision', 'qwen3:0.6b', 0.5]]);
      expect(JSON.parse(readFileSync(join(temp.dataDir, 'model-checks.json'), 'utf8')).results).toHaveLength(3);
    } finally {
      await temp.cleanup();
      await server.close();
    }
  }, 120_000);

  it('runs through the built-in provider with the real GGUF and reports its figures (P(yes) from the next-token distribution)', async () => {
    const saved = process.env.CRA_LLAMA_THREADS;
    process.env.CRA_LLAMA_THREADS = '1';
    const temp = createTempCore();
    try {
      await new ModelStore(temp.dataDir).addByPath(REAL_GGUF_NAME, realGgufPath());
      writeFileSync(join(temp.dataDir, 'config.toml'), `[models]\nprovider = "builtin"\nreasoning = "${REAL_GGUF_NAME}"\ncontext_window = 2048\n`);
      const { runId } = await temp.core.handlers['models/check']({ repoPath: shop, stage: 'scope', n: 4 });
      const [result] = ((await temp.core.runs.wait(runId)) as { results: ModelCheckResult[] }).results;
      expect(result).toMatchObject({ stage: 'scope', model: REAL_GGUF_NAME, n: 4, positives: 2 });
      // Whatever this base model answers, each figure is a figure: P(yes) exists for every item, so the AUC does.
      for (const figure of [result!.accuracy, result!.balancedAccuracy, result!.auc, result!.unusableRate]) expect(figure).toBeGreaterThanOrEqual(0);
      expect(result!.auc).not.toBeNull();
      expect(result!.tokensPerSecond).toBeGreaterThan(0);
    } finally {
      await temp.cleanup();
      if (saved === undefined) delete process.env.CRA_LLAMA_THREADS;
      else process.env.CRA_LLAMA_THREADS = saved;
    }
  }, 120_000);
});
