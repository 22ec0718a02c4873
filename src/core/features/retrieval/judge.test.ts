import { beforeEach, describe, expect, it } from 'vitest';
import type { Provider } from '../../platform/config/schema';
import type { Db } from '../../platform/db/open';
import { clientFromToml, useLoopbackModels } from '../../testing/loopbackModels';
import type { OllamaTestServer, ScriptedReply } from '../../testing/ollamaTestServer';
import { pYesFrom } from '../../platform/llm/pYes';
import { judgeAll, judgmentReason, readAnswer, runBinaryJudgment, type JudgeSetup } from './judge';
import { RERANKER_SYSTEM } from './judgePrompts';

// Every small-model behaviour the judge must survive, over real HTTP to the loopback server.

const loopback = useLoopbackModels({ 'qwen3:0.6b': {}, 'qwen3-reranker:0.6b': {} });
let server: OllamaTestServer;
let db: Db;
const TASK = 'Fix the off-by-one error in the tokenizer when the input ends with a newline';

beforeEach(() => ({ server, db } = loopback));

function setup(provider: Provider = 'ollama', scopeModel = 'qwen3:0.6b', extra: Partial<JudgeSetup> = {}): JudgeSetup {
  const toml = `[models]\nprovider = "${provider}"\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\nbase_url = "${server.url}"\ncontext_window = 8192\nmax_tokens = 256\n[models.overrides]\nscope = "${scopeModel}"\n`;
  const llm = clientFromToml(toml, db);
  return { llm, stage: 'scope', instruct: 'Is this file needed to carry out the task?', task: TASK, runId: 'run-1', ...extra };
}

const calls = () => db.prepare('select id, stage, run_id as runId, response, params_json as params from model_calls order by id').all() as Array<{ id: number; stage: string; runId: string; response: string; params: string }>;
const body = (i = -1) => server.requests.at(i)?.body as Record<string, unknown>;

describe.each(['ollama', 'openai_compat'] as const)('runBinaryJudgment over %s', (provider) => {
  // Strict: exactly yes or no after trimming (case ignored), or the structured-output object alone; anything else is a default-deny.
  const cases: Array<[string, ScriptedReply, { verdict: 'yes' | 'no'; read: string; denyCause?: string }]> = [
    ['"YES"', { text: 'YES' }, { verdict: 'yes', read: 'exact' }],
    ['" no\n" (whitespace trimmed)', { text: ' no\n' }, { verdict: 'no', read: 'exact' }],
    ['"Yes." (punctuation)', { text: 'Yes.' }, { verdict: 'no', read: 'default-deny', denyCause: 'unparseable' }],
    ['"yes, because…" cut off by the limit', { text: 'yes, because the tokenizer module holds the newline handling that the task names, and the parser calls it for every line it reads from the input' }, { verdict: 'no', read: 'default-deny', denyCause: 'cut-off' }],
    ['"yes, because…" within the limit', { text: 'yes, because' }, { verdict: 'no', read: 'default-deny', denyCause: 'unparseable' }],
    ['the answer object', { text: '{"answer": "no"}' }, { verdict: 'no', read: 'json' }],
    ['JSON with trailing prose', { text: '{"answer": "no"} Formats only.' }, { verdict: 'no', read: 'default-deny', denyCause: 'unparseable' }],
    ['a fenced JSON answer', { text: '```json\n{"answer": "yes"}\n```' }, { verdict: 'no', read: 'default-deny', denyCause: 'unparseable' }],
    ['a closed think block before the answer (a server ignoring think: false)', { text: '<think>\nok\n</think>\nyes' }, { verdict: 'no', read: 'default-deny', denyCause: 'unparseable' }],
    ['an empty answer', { text: '' }, { verdict: 'no', read: 'default-deny', denyCause: 'empty' }],
    ['a model thinking past the limit (cut off mid-thought)', { text: '<think>\nOkay, let me look at what the task asks and whether this file has the tokenizer in it' }, { verdict: 'no', read: 'default-deny', denyCause: 'cut-off' }],
    ['"Maybe."', { text: 'Maybe.' }, { verdict: 'no', read: 'default-deny', denyCause: 'unparseable' }],
    ['JSON whose answer is not yes or no', { text: '{"answer": "partly"}' }, { verdict: 'no', read: 'default-deny', denyCause: 'unparseable' }],
  ];

  it.each(cases)('reads %s', async (_name, reply, expected) => {
    server.script.chat.push(reply);
    const j = await runBinaryJudgment(setup(provider), 'path: src/tokenizer.py\nsymbols: tokenize, _split_lines');
    expect(j).toMatchObject(expected);
    // One call, in the log under its stage and run, and the judgment points at it.
    const [row] = calls();
    expect(calls()).toHaveLength(1);
    expect(row).toMatchObject({ id: j.callId, stage: 'scope', runId: 'run-1' });
    expect(judgmentReason(j).kind).toBe(expected.read === 'default-deny' ? 'default-deny' : expected.verdict === 'yes' ? 'judged-relevant' : 'judged-irrelevant');
  });

  it('asks a chat model with thinking off, the answer schema, a small limit and log-probabilities; task first, item last', async () => {
    server.script.chat.push({ json: { answer: 'yes' } });
    const j = await runBinaryJudgment(setup(provider), 'path: src/tokenizer.py');
    expect(j).toMatchObject({ verdict: 'yes', read: 'json' });
    const b = body();
    const prompt = (b.messages as Array<{ role: string; content: string }>).at(-1)?.content ?? '';
    expect(prompt.indexOf(TASK)).toBeGreaterThanOrEqual(0);
    expect(prompt.indexOf(TASK)).toBeLessThan(prompt.indexOf('path: src/tokenizer.py'));
    if (provider === 'ollama') expect(b).toMatchObject({ think: false, logprobs: true, top_logprobs: 5, options: { num_predict: 16, temperature: 0 }, format: { properties: { answer: { enum: ['yes', 'no'] } } } });
    else expect(b).toMatchObject({ chat_template_kwargs: { enable_thinking: false }, logprobs: true, top_logprobs: 5, max_tokens: 16, response_format: { type: 'json_schema' } });
  });

  it('records P(yes) from the answer token of structured output (softmax over yes and no)', async () => {
    const at = (token: string) => ({ token, logprob: -0.001 });
    server.script.chat.push({ json: { answer: 'yes' }, logprobs: [at('{"'), at('answer'), at('":"'), { token: 'yes', logprob: -0.2, top: [{ token: 'yes', logprob: -0.2 }, { token: 'no', logprob: -1.8 }] }, at('"}')] });
    const j = await runBinaryJudgment(setup(provider), 'path: src/tokenizer.py');
    expect(j.pYes).toBeCloseTo(Math.exp(-0.2) / (Math.exp(-0.2) + Math.exp(-1.8)), 6);
    expect(judgmentReason(j)).toEqual({ kind: 'judged-relevant', detail: { model: 'qwen3:0.6b', probability: j.pYes } });
  });

  it('uses the reranker form for a reranker model: its system prompt, Instruct/Query/Document, a bare-token answer', async () => {
    server.script.chat.push({ logprobs: [{ token: 'no', logprob: -0.05, top: [{ token: 'no', logprob: -0.05 }, { token: 'yes', logprob: -3.0 }] }] });
    const j = await runBinaryJudgment(setup(provider, 'qwen3-reranker:0.6b'), 'path: docs/changelog.md');
    expect(j).toMatchObject({ verdict: 'no', read: 'exact', model: 'qwen3-reranker:0.6b' });
    expect(j.pYes).toBeCloseTo(Math.exp(-3) / (Math.exp(-3) + Math.exp(-0.05)), 6);
    const messages = body().messages as Array<{ role: string; content: string }>;
    expect(messages[0]).toEqual({ role: 'system', content: RERANKER_SYSTEM });
    expect(messages[1]?.content).toBe(`<Instruct>: Is this file needed to carry out the task?\n<Query>: ${TASK}\n<Document>: path: docs/changelog.md`);
    expect(body().format ?? body().response_format).toBeUndefined();
  });
});

describe('judgeAll', () => {
  it('runs calls concurrently and returns verdicts in input order whatever order they finish in', async () => {
    // Earlier items answer later, so arrival order and finishing order both differ from input order.
    server.script.respond = (prompt) => {
      const n = Number(/item (\d+)/.exec(prompt)?.[1]);
      return { text: n % 2 === 0 ? 'yes' : 'no', delayMs: (6 - n) * 15 };
    };
    const docs = [0, 1, 2, 3, 4, 5].map((n) => `item ${n}`);
    const judgments = await judgeAll(setup('ollama', 'qwen3:0.6b', { concurrency: 3 }), docs);
    expect(judgments.map((j) => j.verdict)).toEqual(['yes', 'no', 'yes', 'no', 'yes', 'no']);
    expect(calls()).toHaveLength(6);
    const sequential = await judgeAll(setup('ollama', 'qwen3:0.6b', { concurrency: 1 }), docs);
    expect(sequential.map((j) => j.verdict)).toEqual(judgments.map((j) => j.verdict));
  });

  it('takes a failed call (HTTP 500, malformed reply) as a logged default-deny and goes on with the next item', async () => {
    server.script.chat.push({ fault: 'http500' }, { fault: 'malformed' }, { text: 'yes' });
    const judgments = await judgeAll(setup(), ['item 0', 'item 1', 'item 2']);
    expect(judgments.map((j) => [j.verdict, j.read, j.denyCause, j.errorCode])).toEqual([
      ['no', 'default-deny', 'call-failed', 'MODEL_ERROR'],
      ['no', 'default-deny', 'call-failed', 'MODEL_ERROR'],
      ['yes', 'exact', undefined, undefined],
    ]);
    expect(judgmentReason(judgments[0]!)).toEqual({ kind: 'default-deny', detail: { model: 'qwen3:0.6b', cause: 'call-failed' } });
    expect(db.prepare('select error_code from model_calls order by id').pluck().all()).toEqual(['MODEL_ERROR', 'MODEL_ERROR', null]);
  });

  it('takes a call past its timeout as a logged default-deny', async () => {
    server.script.chat.push({ fault: 'stall' });
    const j = await runBinaryJudgment(setup('ollama', 'qwen3:0.6b', { timeoutMs: 200 }), 'item 0');
    expect(j).toMatchObject({ verdict: 'no', read: 'default-deny', denyCause: 'call-failed', errorCode: 'MODEL_ERROR' });
    expect(j.raw).toMatch(/did not answer within/);
    expect(calls()[0]?.id).toBeDefined();
  });

  it('stops the run (no deny) when the model is not installed or the caller cancelled', async () => {
    await expect(runBinaryJudgment(setup('ollama', 'qwen3:8b-missing'), 'item 0')).rejects.toMatchObject({ code: 'MODEL_NOT_FOUND' });
    const controller = new AbortController();
    server.script.chat.push({ fault: 'stall' });
    const pending = runBinaryJudgment(setup('ollama', 'qwen3:0.6b', { signal: controller.signal }), 'item 0');
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ code: 'CANCELLED' });
  });

  it('reports progress after each judgment', async () => {
    const seen: Array<[number, number]> = [];
    await judgeAll(setup('ollama', 'qwen3:0.6b', { concurrency: 2, onJudged: (d, t) => seen.push([d, t]) }), ['a', 'b', 'c']);
    expect(seen).toEqual([[1, 3], [2, 3], [3, 3]]);
  });
});

describe('readAnswer and pYesFrom', () => {
  it('refuses every decorated form: "Answer: yes", **No**, a yes buried in prose, a JSON array', () => {
    for (const text of ['Answer: yes', '**No**', 'I think the answer is yes', '["yes"]', '{"answer": true}', 'yes yes']) expect(readAnswer(text)).toEqual({ cause: 'unparseable' });
    expect(readAnswer(' {"answer": " YES "} ')).toEqual({ verdict: 'yes', read: 'json' });
    expect(readAnswer('no', 'length')).toEqual({ verdict: 'no', read: 'exact' });
  });

  it('ignores yes/no tokens inside a thinking block and counts case variants together', () => {
    const lp = (token: string, logprob = -0.01, top: Array<{ token: string; logprob: number }> = []) => ({ token, logprob, top });
    const tokens = [lp('<think>'), lp('no', -0.1, [lp('no'), lp('yes', -5)]), lp('</think>'), lp('Yes', -0.5, [lp('Yes', -0.5), lp('yes', -1.5), lp('No', -2)])];
    const y = Math.exp(-0.5) + Math.exp(-1.5);
    expect(pYesFrom(tokens)).toBeCloseTo(y / (y + Math.exp(-2)), 6);
    expect(pYesFrom([lp('Maybe')])).toBeUndefined();
  });
});
