import { beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../platform/db/open';
import type { LlmClient } from '../../platform/llm/client';
import { clientFromToml, loopbackToml, useLoopbackModels } from '../../testing/loopbackModels';
import type { OllamaTestServer } from '../../testing/ollamaTestServer';
import { detectIntent, FALLBACK_MODE, parseRoute, routeQuestion, stripThinking, type RouterModel } from './router';

const QUESTION = 'Where is the config file loaded?';

const loopback = useLoopbackModels({ 'qwen3:0.6b': {} });
let server: OllamaTestServer;
let db: Db;
let client: LlmClient;

beforeEach(() => {
  ({ server, db } = loopback);
  client = clientFromToml(loopbackToml(server.url), db);
});

const model: RouterModel = (prompt, options) => client.complete(prompt, options);

/** Route the question with the test server replying `text`. */
async function routeWith(text: string) {
  server.script.chat.push({ text });
  return routeQuestion(model, QUESTION);
}

describe('router over the loopback model server', () => {
  it.each([
    ['[SEMANTIC:] configuration loading', 'SEMANTIC', 'configuration loading'],
    ['[SEMANTIC_RERANK:] load config toml', 'SEMANTIC_RERANK', 'load config toml'],
    ['[BM25:] loadConfig configFile', 'BM25', 'loadConfig configFile'],
    ['[HYBRID:] where config is read', 'HYBRID', 'where config is read'],
    ['  [BM25:] loadConfig  \n\n', 'BM25', 'loadConfig'],
  ])('accepts %j', async (reply, mode, query) => {
    const route = await routeWith(reply);
    expect(route).toMatchObject({ mode, query, source: 'model', thinking: false });
    expect(route.reason).toBeUndefined();
  });

  it('DIRECT with nothing after it asks the question itself', async () => {
    expect(await routeWith('[DIRECT:]')).toMatchObject({ mode: 'DIRECT', query: QUESTION, source: 'model' });
  });

  it('removes a thinking block, then reads the line', async () => {
    const route = await routeWith('<think>\nThe user wants a file. Keywords are best.\n[HYBRID:] not this one\n</think>\n[BM25:] loadConfig');
    expect(route).toMatchObject({ mode: 'BM25', query: 'loadConfig', source: 'model', thinking: true });
  });

  it.each([
    ['', 'the reply was empty'],
    ['<think>only thoughts</think>', 'the reply had only a thinking block'],
    ['<think>an unclosed thought [BM25:] x', 'the reply had only a thinking block'],
    ['Sure! Here is the route:\n[BM25:] loadConfig', 'the reply had 2 lines, not one'],
    ['[BM25:] loadConfig\nI chose keywords because…', 'the reply had 2 lines, not one'],
    ['I would say [BM25:] loadConfig', 'the reply had text before its prefix'],
    ['BM25: loadConfig', 'the reply had no [MODE:] prefix'],
    ['[KEYWORD:] loadConfig', 'unknown prefix [KEYWORD:]'],
    ['[bm25:] loadConfig', 'unknown prefix [bm25:]'],
    ['[BM25:] loadConfig [HYBRID:] config', 'the reply had more than one prefix'],
  ])('falls back on %j: %s', async (reply, reason) => {
    const route = await routeWith(reply);
    expect(route).toMatchObject({ mode: FALLBACK_MODE, query: QUESTION, source: 'fallback', reason, raw: reply });
  });

  it('falls back when the routing call fails, with the error as the reason, and logs the call', async () => {
    server.script.chat.push({ fault: 'http500' });
    const route = await routeQuestion(model, QUESTION);
    expect(route.source).toBe('fallback');
    expect(route.reason).toMatch(/^the routing call failed: .*500/);
    const calls = db.prepare('select stage, error_code as code from model_calls').all();
    expect(calls).toEqual([{ stage: 'routing', code: expect.any(String) }]);
  });

  it('sends the protocol as the system prompt on stage routing', async () => {
    await routeWith('[BM25:] x');
    const body = server.requests.find((r) => r.path === '/api/chat')?.body as { messages: Array<{ role: string; content: string }> };
    expect(body.messages[0]?.role).toBe('system');
    expect(body.messages[0]?.content).toContain('[SEMANTIC_RERANK:]');
    expect(body.messages.at(-1)?.content).toBe(`Question: ${QUESTION}`);
  });
});

describe('parseRoute and stripThinking without a server', () => {
  it('is deterministic: the same reply gives the same route', () => {
    expect(parseRoute('nonsense', 'q')).toEqual(parseRoute('nonsense', 'q'));
  });
  it('removes every thinking block', () => {
    expect(stripThinking('<think>a</think>x<THINK>b</THINK>y')).toEqual({ text: 'xy', thinking: true });
    expect(stripThinking('plain')).toEqual({ text: 'plain', thinking: false });
  });
});

describe('intent detection', () => {
  it.each([
    ['Summarize this codebase', 'SUMMARY', 1],
    ['Where is user auth implemented?', 'SEARCH', 1],
    ['How does a request get processed?', 'FLOW', 2],
    ['Where is the order entity persisted?', 'DATA_LIFECYCLE', 2],
    ['How do I migrate from v1 to v2?', 'MIGRATION', 1],
    ['Explain parseQuery', 'EXPLAIN', 1],
    ['What would break if I change loadConfig?', 'IMPACT', 3],
  ])('%j is %s with depth %d', (question, intent, depth) => {
    expect(detectIntent(question)).toMatchObject({ intent, depth });
  });
  it('deeper intents decay faster and allow more nodes', () => {
    expect(detectIntent('What would break if I change x?').decay).toBeLessThan(detectIntent('Where is x?').decay);
    expect(detectIntent('What would break if I change x?').maxNodes).toBeGreaterThan(detectIntent('Where is x?').maxNodes);
  });
});
