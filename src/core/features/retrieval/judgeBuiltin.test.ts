/**
 * Binary judgments in the built-in runtime with the real GGUF: the verdict comes from the
 * next-token distribution (nothing generated), P(yes) is recorded, and the prompt prefix shared by
 * a stage's judgments is evaluated once — with the same distribution as evaluating everything.
 * (The model is a tiny base model: only the mechanics are asserted, never what it answers.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRawDatabase } from '../../platform/db/raw';
import { LlmClient } from '../../platform/llm/client';
import { RawCallLog } from '../../platform/logs/callLog';
import { routerFromToml } from '../../testing/loopbackModels';
import { REAL_GGUF_NAME, realGgufRuntime } from '../../testing/realGguf';
import { judgeAll, judgmentReason } from './judge';

let env: Awaited<ReturnType<typeof realGgufRuntime>>;
beforeAll(async () => {
  env = await realGgufRuntime();
});
afterAll(async () => {
  await env?.dispose();
});

const db = openRawDatabase(':memory:');
function client(): LlmClient {
  const router = routerFromToml(`[models]\nprovider = "builtin"\nreasoning = "${REAL_GGUF_NAME}"\ncoding = "${REAL_GGUF_NAME}"\ncontext_window = 1024\n`);
  return new LlmClient({ router: () => router, log: new RawCallLog(db), retry: { attempts: 1 }, providers: { builtin: env.provider } });
}

const TASK = 'Fix the crash when the cat climbs the tree and the dog barks at the moon.';
const ITEMS = ['src/cat/climb.ts: export function climb(tree) { return tree.height; }', 'README.md: how to install', 'src/dog/bark.ts: export function bark(at) { return `woof at ${at}`; }'];

describe('judgments in the built-in runtime', () => {
  it('reads each verdict from the next-token distribution, records P(yes), and evaluates the shared prefix once', async () => {
    const setup = { llm: client(), stage: 'scope', instruct: 'Is this file needed to carry out the task?', task: TASK, log: new RawCallLog(db) };
    const judgments = await judgeAll(setup, ITEMS);
    for (const j of judgments) {
      expect(j.read).toBe('next-token');
      expect(j.completionTokens).toBe(0);
      expect(j.pYes).toBeGreaterThanOrEqual(0);
      expect(j.pYes).toBeLessThanOrEqual(1);
      expect(j.verdict).toBe((j.pYes as number) >= 0.5 ? 'yes' : 'no');
      expect(judgmentReason(j).detail).toMatchObject({ probability: j.pYes });
    }
    const rows = db.prepare("select prompt_tokens, completion_tokens, response, params_json from model_calls where stage = 'scope' order by id").all() as Array<{ prompt_tokens: number; completion_tokens: number; response: string; params_json: string }>;
    expect(rows).toHaveLength(3);
    const evaluated = rows.map((r) => JSON.parse(r.params_json).evaluated_tokens as number);
    // The first judgment evaluates its whole prompt; the others only what follows the shared system + task.
    expect(evaluated[0]).toBe(rows[0]?.prompt_tokens);
    for (const [i, r] of rows.entries()) {
      expect(r.response).toBe(`P(yes)=${(judgments[i]?.pYes as number).toFixed(4)}`);
      expect(r.completion_tokens).toBe(0);
      if (i > 0) expect(evaluated[i]).toBeLessThan(r.prompt_tokens / 2);
    }
  });

  it('gives the same P(yes) with the prefix reused as with everything evaluated again', async () => {
    const llm = client();
    const system = 'You are a strict reviewer. Is this file needed to carry out the task? Answer with exactly one word: yes or no.';
    const prompt = (item: string) => `Task:\n${TASK}\n\nItem:\n${item}\n\nAnswer yes or no.`;
    for (const item of ITEMS) {
      const fresh = await llm.judgeNextToken(prompt(item), { stage: 'precision', system, reuse: false });
      const reused = await llm.judgeNextToken(prompt(`${item} `), { stage: 'precision', system });
      const again = await llm.judgeNextToken(prompt(item), { stage: 'precision', system });
      expect(fresh.evaluatedTokens).toBe(fresh.promptTokens);
      expect(again.evaluatedTokens).toBeLessThan(again.promptTokens);
      expect(again.pYes).toBeCloseTo(fresh.pYes as number, 4);
      expect(again.yesMass + again.noMass).toBeGreaterThan(0);
      expect(again.pYes).toBeCloseTo(again.yesMass / (again.yesMass + again.noMass), 10);
      expect(reused.promptTokens).toBeGreaterThanOrEqual(fresh.promptTokens);
    }
  });
});
