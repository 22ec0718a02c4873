import { beforeEach, describe, expect, it } from 'vitest';
import type { Provider } from '../config/schema';
import type { Db } from '../db/open';
import { clientFromToml, useLoopbackModels } from '../../testing/loopbackModels';
import type { OllamaTestServer } from '../../testing/ollamaTestServer';
import type { LlmClient } from './client';

// Small models as they really behave (thinking, cut-offs, structured output, log-probabilities),
// over real HTTP to the loopback server, through the one client.

const loopback = useLoopbackModels({ 'qwen3:0.6b': {} });
let server: OllamaTestServer;
let db: Db;
const SCHEMA = { type: 'object', properties: { answer: { type: 'string', enum: ['yes', 'no'] } }, required: ['answer'] };

beforeEach(() => ({ server, db } = loopback));

function clientFor(provider: Provider): LlmClient {
  const toml = `[models]\nprovider = "${provider}"\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\nbase_url = "${server.url}"\ncontext_window = 8192\nmax_tokens = 64\n[models.overrides]\nscope = {model = "qwen3:0.6b", max_tokens = 8}\n`;
  return clientFromToml(toml, db);
}

function loggedParams(): Record<string, unknown> {
  return JSON.parse(String((db.prepare('select params_json from model_calls order by id desc limit 1').get() as { params_json: string }).params_json)) as Record<string, unknown>;
}

const lastBody = () => server.requests[server.requests.length - 1]?.body as Record<string, unknown>;

describe.each(['ollama', 'openai_compat'] as const)('small-model behaviour over %s', (provider) => {
  it('a thinking model puts <think>…</think> before the answer unless the request turns thinking off', async () => {
    server.script.chat.push({ thinking: 'The task is about parsing.', text: 'Yes.' }, { thinking: 'The task is about parsing.', text: 'Yes.' });
    const inline = await clientFor(provider).complete('Relevant?');
    expect(inline.text).toBe('<think>\nThe task is about parsing.\n</think>\n\nYes.');
    const off = await clientFor(provider).complete('Relevant?', { think: false });
    expect(off.text).toBe('Yes.');
    expect(off.thinking).toBeUndefined();
    expect(provider === 'ollama' ? lastBody().think : lastBody().chat_template_kwargs).toEqual(provider === 'ollama' ? false : { enable_thinking: false });
    expect(loggedParams()).toMatchObject({ think: false, done_reason: 'stop' });
  });

  it('a small token limit cuts a thinking model off mid-thought, with done reason length', async () => {
    server.script.chat.push({ thinking: 'Let me look at each file in turn and weigh it carefully.', text: 'yes' });
    const cut = await clientFor(provider).complete('Relevant?', { stage: 'scope' });
    expect(cut.doneReason).toBe('length');
    expect(cut.completionTokens).toBe(8);
    expect(cut.text.startsWith('<think>')).toBe(true);
    expect(cut.text).not.toContain('</think>');
    expect(loggedParams()).toMatchObject({ done_reason: 'length', max_tokens: 8 });
  });

  it('structured output: a JSON schema in the request gets conforming JSON back; a server ignoring it answers free text', async () => {
    server.script.chat.push({ json: { answer: 'no' }, text: 'No, it is unrelated.' }, { text: '{"answer": "yes"} The file defines the parser.' });
    const structured = await clientFor(provider).complete('Relevant?', { format: SCHEMA, think: false });
    expect(JSON.parse(structured.text)).toEqual({ answer: 'no' });
    const sent = provider === 'ollama' ? lastBody().format : (lastBody().response_format as { json_schema: { schema: unknown } }).json_schema.schema;
    expect(sent).toEqual(SCHEMA);
    expect(loggedParams().format).toEqual(SCHEMA);
    const ignored = await clientFor(provider).complete('Relevant?', { format: SCHEMA });
    expect(ignored.text).toBe('{"answer": "yes"} The file defines the parser.');
  });

  it('a script whose JSON breaks the request schema fails loudly (a test bug, not a model reply)', async () => {
    server.script.chat.push({ json: { answer: 'maybe' } });
    await expect(clientFor(provider).complete('Relevant?', { format: SCHEMA })).rejects.toThrow(/schema/);
  });

  it('returns token log-probabilities with the asked number of alternatives, only when asked', async () => {
    const logprobs = [{ token: 'yes', logprob: -0.22, top: [{ token: 'yes', logprob: -0.22 }, { token: 'no', logprob: -1.61 }, { token: 'Yes', logprob: -4 }] }];
    server.script.chat.push({ logprobs }, { logprobs });
    const asked = await clientFor(provider).complete('Relevant?', { logprobs: 2, think: false });
    expect(asked.text).toBe('yes');
    expect(asked.logprobs).toEqual([{ token: 'yes', logprob: -0.22, top: [{ token: 'yes', logprob: -0.22 }, { token: 'no', logprob: -1.61 }] }]);
    expect(loggedParams()).toMatchObject({ top_logprobs: 2, logprobs: asked.logprobs });
    const notAsked = await clientFor(provider).complete('Relevant?', { think: false });
    expect(notAsked.text).toBe('yes');
    expect(notAsked.logprobs).toBeUndefined();
  });

  it('streams a cut-off reply with its log-probabilities and finish reason', async () => {
    server.script.chat.push({ text: 'yes because the parser lives there and the task names it' });
    const stream = clientFor(provider).stream('Relevant?', { stage: 'scope', logprobs: 0 });
    const deltas: string[] = [];
    for await (const d of stream) deltas.push(d);
    const final = await stream.final;
    expect(deltas).toHaveLength(8);
    expect(final).toMatchObject({ doneReason: 'length', text: deltas.join('') });
    expect(final.logprobs?.map((l) => l.token)).toEqual(deltas);
  });
});

describe('Ollama thinking on request', () => {
  it('think: true returns the reasoning apart; the log keeps it in front of the answer', async () => {
    server.script.chat.push({ thinking: 'Check the imports.', text: 'YES' });
    const result = await clientFor('ollama').complete('Relevant?', { think: true });
    expect(result).toMatchObject({ text: 'YES', thinking: 'Check the imports.' });
    const row = db.prepare('select response from model_calls order by id desc limit 1').get() as { response: string };
    expect(row.response).toBe('<think>Check the imports.</think>YES');
    expect(result.callId).toBeGreaterThan(0);
  });
});
