import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatSource, EventPayload } from '../../shared/contract';
import { openRawDatabase } from '../db/raw';
import { KnowledgeBase } from '../kb/knowledgeBase';
import { repoPaths } from '../repos/registry';
import { EventBus } from '../runtime/events';
import { sharedDefaultEmbedder } from '../search/search';
import { createChatRepo } from '../testing/chatRepo';
import type { TestRepo } from '../testing/gitRepo';
import { OllamaTestServer } from '../testing/ollamaTestServer';
import { loopbackClient } from '../testing/retrievalHarness';
import { createTempCore } from '../testing/tempCore';
import { evidenceBeforeAnswer } from './evidence';
import { DEFAULT_PIPELINE, loadPipelines, REPO_PIPELINE_DIR, type ChatPipeline } from './pipeline';
import { ConversationStore } from './store';
import { runChatTurn, type TurnDeps } from './turn';

/*
 * The evidence walk (`cra eval --chat-evidence`) against real turns over the same index: the walk's
 * evidence is what a turn sends as its sources, for a budget that fits, one that is condensed by a
 * model call (the walk makes none) and one that is trimmed.
 */

const temp = createTempCore();
let server: OllamaTestServer;
let repo: TestRepo;
let kb: KnowledgeBase;
let store: ConversationStore;
let raw: ReturnType<typeof openRawDatabase>;

beforeAll(async () => {
  server = await OllamaTestServer.start();
  server.install('qwen3:0.6b');
  repo = createChatRepo();
  const { repo: info, runId } = await temp.core.handlers['repos/add']({ path: repo.root });
  await temp.core.runs.wait(runId);
  kb = KnowledgeBase.open(repoPaths(temp.dataDir, info.id).curated, info.id, { withVectors: true });
  store = ConversationStore.open(join(temp.dataDir, 'evidence-raw.sqlite'));
  raw = openRawDatabase(join(temp.dataDir, 'calls-raw.sqlite'));
  mkdirSync(join(repo.root, REPO_PIPELINE_DIR), { recursive: true });
  writeFileSync(
    join(repo.root, REPO_PIPELINE_DIR, 'small.yaml'),
    'pipeline:\n  name: small\n  extends: default\n  settings:\n    max_context_tokens: 30\n',
  );
  writeFileSync(
    join(repo.root, REPO_PIPELINE_DIR, 'trim.yaml'),
    'pipeline:\n  name: trim\n  extends: small\n  steps:\n    - id: budget\n      action: check_context_budget\n      on_ok: answer\n      on_over_limit: trim\n    - id: trim\n      action: trim_context\n      next: answer\n',
  );
}, 60_000);
afterAll(async () => {
  raw.close();
  store.close();
  kb.close();
  await server.close();
  repo.cleanup();
  await temp.cleanup();
});
beforeEach(() => {
  server.script.chat = [];
  server.requests.length = 0;
});

function pipeline(name: string): ChatPipeline {
  const set = loadPipelines({ repoRoot: repo.root });
  expect(set.problems).toEqual([]);
  return set.pipelines.get(name ?? DEFAULT_PIPELINE)!;
}

function deps(p: ChatPipeline, events = new EventBus()): TurnDeps {
  const client = loopbackClient(server, raw);
  return { kb, store, events, embedder: sharedDefaultEmbedder(), pipeline: p, complete: (prompt, o) => client.complete(prompt, o), stream: (prompt, o) => client.stream(prompt, o) };
}

const input = (question: string, conversationId: string) => ({ runId: `r-${conversationId}`, repoId: 'fx', conversationId, question, mode: 'bm25' as const, language: 'en', signal: new AbortController().signal });
const lines = (sources: readonly Pick<ChatSource, 'path' | 'startLine' | 'endLine'>[]) => sources.map((s) => `${s.path}:${s.startLine}-${s.endLine}`);

/** A real turn's sources (the first sources event, and the stored answer's). */
async function turnSources(p: ChatPipeline, question: string, conversationId: string, replies: string[]) {
  server.script.chat.push(...replies.map((text) => ({ text })));
  const events = new EventBus();
  const first: Array<EventPayload<'chat/sources'>> = [];
  events.on('chat/sources', (s) => first.push(s));
  const message = await runChatTurn(deps(p, events), input(question, conversationId));
  return { first: first[0]!.sources, stored: message.sources ?? [], trace: message.trace! };
}

describe('the evidence a turn would send before its answer call', () => {
  it('is the sources of a real turn when the evidence fits, and the walk makes no model call', async () => {
    const question = 'Where is load_config defined?';
    const walked = await evidenceBeforeAnswer(deps(pipeline('default')), input(question, 'walk-1'));
    expect(server.requests).toEqual([]);
    expect(walked.calls).toBe(0);
    expect(walked.budget).toBe('fits');
    expect(walked.route).toMatchObject({ mode: 'BM25', source: 'chosen' });
    expect(walked.steps).toEqual(['translate_in_if_needed', 'load_conversation_history', 'route_question', 'fetch_more_context', 'expand_dependency_tree', 'fetch_node_texts', 'check_context_budget']);
    expect(walked.evidence.map((e) => e.path)).toContain('config.py');
    // Nothing was stored: the walk does not append the question.
    expect(store.messages('walk-1')).toEqual([]);
    const turn = await turnSources(pipeline('default'), question, 'turn-1', ['[Answer:] In config.py:4.']);
    expect(lines(walked.evidence)).toEqual(lines(turn.stored));
    expect(lines(walked.evidence)).toEqual(lines(turn.first));
  });

  it('over the budget: the pieces the summarizer reads, which the real turn condenses with a model call and shows as its sources', async () => {
    const question = 'How are the settings loaded by the app?';
    const walked = await evidenceBeforeAnswer(deps(pipeline('small')), input(question, 'walk-2'));
    expect(server.requests).toEqual([]);
    expect(walked.budget).toBe('summarized');
    expect(walked.steps.at(-1)).toBe('summarize_context');
    expect(walked.fetched.length).toBeGreaterThan(walked.evidence.length);
    const turn = await turnSources(pipeline('small'), question, 'turn-2', ['config.py loads JSON; app.py calls load_config.', '[Answer:] See config.py:4.']);
    expect(turn.trace.calls!.map((c) => c.purpose)).toEqual(['evidence-summary', 'answer']);
    expect(turn.trace.rounds![0]!.budget).toBe('summarized');
    expect(lines(walked.evidence)).toEqual(lines(turn.stored));
  });

  it('a pipeline that trims: the best pieces that fit, as the real turn sends them', async () => {
    const question = 'How are the settings loaded by the app?';
    const walked = await evidenceBeforeAnswer(deps(pipeline('trim')), input(question, 'walk-3'));
    expect(walked.budget).toBe('trimmed');
    expect(walked.evidence.length).toBeLessThan(walked.fetched.length);
    const turn = await turnSources(pipeline('trim'), question, 'turn-3', ['[Answer:] See config.py:4.']);
    expect(turn.trace.rounds![0]!.budget).toBe('trimmed');
    expect(lines(walked.evidence)).toEqual(lines(turn.stored));
  });
});
