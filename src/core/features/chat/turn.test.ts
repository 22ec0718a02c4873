import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatMessage, EventKey, EventPayload } from '../../../shared/contract';
import { openRawDatabase } from '../../platform/db/raw';
import { useChatFixture } from '../../testing/chatFixture';
import type { TestRepo } from '../../testing/gitRepo';
import type { OllamaTestServer } from '../../testing/ollamaTestServer';
import { repoPaths } from '../../platform/layout';

/*
 * Chat turns end to end through the chat domain, with the loopback model server answering each
 * call in order: the answer protocol and its loop guard, evidence and history budgets, languages,
 * repository pipelines, and the trace of every call.
 */

const fx = useChatFixture({ engineConfig: '' });
const { core, pipelineFile, prompts } = fx;
let server: OllamaTestServer;
let repo: TestRepo;
let repoId: string;

beforeAll(() => ({ server, repo, repoId } = fx));
beforeEach(() => rmSync(join(repo.root, '.cleanroom'), { recursive: true, force: true }));

type Seen = { key: EventKey; payload: unknown };
/** Event keys in order, a run of tokens counted once. */
const keysOf = (seen: Seen[]) => seen.map((s) => s.key).filter((k, i, all) => !(k === 'chat/token' && all[i - 1] === 'chat/token'));
const of = <K extends EventKey>(seen: Seen[], key: K) => seen.filter((s) => s.key === key).map((s) => s.payload as EventPayload<K>);

/** Ask with the server replying `replies` in order; the events of the run and the stored answer. */
async function ask(question: string, replies: Array<string | { chunks: string[] }>, options: { mode?: 'auto' | 'bm25'; conversationId?: string; language?: string; detected?: { language: string | null; confidence: number }; pipeline?: string } = {}) {
  server.script.chat.push(...replies.map((r) => (typeof r === 'string' ? { text: r } : r)));
  const seen: Seen[] = [];
  const stops = (['chat/sources', 'chat/token', 'chat/done'] as const).map((key) => core.events.on(key, (payload) => seen.push({ key, payload })));
  try {
    const { runId, conversationId } = await core.handlers['chat/ask']({ repoId, question, mode: options.mode ?? 'bm25', ...options });
    await core.runs.wait(runId);
    const message = of(seen, 'chat/done')[0]!.message;
    return { seen, message, trace: message.trace!, conversationId, tokens: of(seen, 'chat/token').map((t) => t.text).join('') };
  } finally {
    stops.forEach((s) => s());
  }
}

/** Each call of the trace is a row of the repository's model-call log, on the stage it says. */
function expectLogged(message: ChatMessage): void {
  const raw = openRawDatabase(repoPaths(fx.dataDir, repoId).raw);
  try {
    for (const call of message.trace!.calls!) {
      expect(call.callId).toEqual(expect.any(Number));
      expect(raw.prepare('select stage, run_id as runId from model_calls where id = ?').get(call.callId)).toEqual({ stage: call.stage, runId: message.runId });
    }
  } finally {
    raw.close();
  }
}

describe('the answer protocol', () => {
  it('[Requesting data on:] runs retrieval, expansion and budgeting again, then the answer uses the new evidence', async () => {
    const { seen, message, trace, tokens } = await ask('Where is mail sent from?', ['<think>not enough</think>[Requesting data on:] send_mail', '[Answer:] From send_mail [mailer.py:1-3].']);
    expect(keysOf(seen)).toEqual(['chat/sources', 'chat/sources', 'chat/token', 'chat/done']);
    expect(of(seen, 'chat/sources').map((s) => s.round ?? 0)).toEqual([0, 1]);
    expect(tokens).toBe('From send_mail [mailer.py:1-3].');
    expect(trace.rounds!.map((r) => [r.round, r.request, r.queries])).toEqual([
      [0, undefined, ['Where is mail sent from?']],
      [1, 'send_mail', ['send_mail']],
    ]);
    expect(trace.rounds![1]!.hits[0]).toMatchObject({ path: 'mailer.py', score: expect.any(Number) });
    expect(trace.calls!.map((c) => [c.purpose, c.round])).toEqual([
      ['answer', 0],
      ['answer', 1],
    ]);
    expect(trace.loops).toEqual({ used: 1, max: 2, requests: ['send_mail'], exhausted: false });
    expect(trace.steps!.map((s) => s.id)).toEqual(['translate_in', 'load_history', 'route', 'retrieve', 'expand', 'fetch_texts', 'budget', 'answer', 'loop_guard', 'retrieve', 'expand', 'fetch_texts', 'budget', 'answer', 'finalize']);
    const second = prompts()[1]!;
    expect(second).toMatch(/\[Source: mailer\.py:1-3\]/);
    expect(second).toContain('## Your earlier requests (searched; their results are in the evidence)\n- send_mail');
    expect(message.citations![0]).toMatchObject({ path: 'mailer.py', status: 'source' });
    expectLogged(message);
    // Each round's evidence is a retrieval decision of the run, on stage chat.
    const raw = openRawDatabase(repoPaths(fx.dataDir, repoId).raw);
    const decisions = raw.prepare("select subject, tier, decision, reason from retrieval_decisions where run_id = ? and stage = 'chat' order by id").all(message.runId) as Array<{ subject: string; tier: string; decision: string; reason: string }>;
    raw.close();
    expect(decisions.map((d) => [d.subject.split(':')[0], d.decision, (JSON.parse(d.reason) as { judgment: { round: number } }).judgment.round])).toEqual(
      expect.arrayContaining([['mailer.py', 'included', 1]]),
    );
    expect(decisions.every((d) => d.decision === 'included')).toBe(true);
  });

  it("a follow-up round's sources carry their search score, however small, never a rounded 0", async () => {
    // `py` is in every file: asked for mailer.py, the search also finds config.py and app.py by it
    // alone, at FTS5's smallest weight (about 1e-6); a neighbour of theirs scores that × decay.
    const { seen, message, trace } = await ask('Where is mail sent from?', ['[Requesting data on:] mailer.py', '[Answer:] In [mailer.py:1-3].']);
    const round = trace.rounds![1]!;
    expect(round.hits.map((h) => h.path).sort()).toEqual(['app.py', 'config.py', 'mailer.py']);
    for (const hit of round.hits) expect(hit.score).toBeGreaterThan(0);
    const followUp = of(seen, 'chat/sources').find((s) => s.round === 1)!;
    const added = followUp.sources.filter((s) => s.path !== 'mailer.py');
    expect(added.filter((s) => s.role === 'seed').map((s) => s.path).sort()).toEqual(['app.py', 'config.py']);
    for (const source of [...followUp.sources, ...message.sources!]) expect(source.score).toBeGreaterThan(0);
    // A seed shows its hit's score; a neighbour its parent's × decay, below the parent's.
    for (const s of added.filter((s) => s.role === 'seed')) expect(s.score).toBe(round.hits.find((h) => h.path === s.path)!.score);
    expect(added.filter((s) => s.role === 'neighbour').map((s) => s.path)).toEqual(['docs/settings.md']);
    for (const s of added.filter((s) => s.role === 'neighbour')) expect(s.score).toBeLessThan(Math.max(...added.filter((a) => a.role === 'seed').map((a) => a.score)));
  });

  it('after max_turn_loops follow-ups the turn says plainly what is missing, without another answer call', async () => {
    const { message, trace, tokens } = await ask('Where is the payment gateway configured?', ['[Requesting data on:] payment gateway', '[Requesting data on:] stripe keys', '[Requesting data on:] billing config']);
    expect(prompts()).toHaveLength(3);
    expect(tokens).toContain('I could not answer this from the repository: after 2 follow-up searches the evidence still lacks what is needed.');
    expect(tokens).toContain('Still missing:\n- payment gateway\n- stripe keys\n- billing config');
    expect(message.status).toBe('done');
    expect(trace.loops).toEqual({ used: 2, max: 2, requests: ['payment gateway', 'stripe keys', 'billing config'], exhausted: true });
    expect(trace.steps!.slice(-3).map((s) => [s.id, s.outcome])).toEqual([
      ['loop_guard', 'exceeded'],
      ['missing', 'ok'],
      ['finalize', 'done'],
    ]);
  });

  it("max_turn_loops comes from the repository's pipeline", async () => {
    pipelineFile('strict.yaml', 'pipeline:\n  name: strict\n  extends: default\n  settings:\n    max_turn_loops: 0\n');
    const { trace, tokens } = await ask('Where is the payment gateway configured?', ['[Requesting data on:] payment gateway'], { pipeline: 'strict' });
    expect(prompts()).toHaveLength(1);
    expect(tokens).toContain('after 0 follow-up searches');
    expect(trace.pipeline).toMatchObject({ name: 'strict', lineage: ['default', 'strict'] });
  });

  it('an answer without a marker is shown, and the trace says it had none', async () => {
    const { tokens, trace } = await ask('Where is send_mail?', ['It is in mailer.py.']);
    expect(tokens).toBe('It is in mailer.py.');
    expect(trace.notes).toContain('The answer had no [Answer:] marker; it was taken as the answer.');
  });
});

describe('budgets', () => {
  it('evidence over max_context_tokens is condensed by a query-aware call that keeps the paths', async () => {
    pipelineFile('small.yaml', 'pipeline:\n  name: small\n  extends: default\n  settings:\n    max_context_tokens: 40\n');
    let callsBeforeSources = -1;
    const stop = core.events.on('chat/sources', () => (callsBeforeSources = prompts().length));
    const { trace, message } = await ask('Where are the settings loaded?', ['load_config(path) in [config.py:4-7] opens the file and returns json.load.', '[Answer:] In load_config [config.py:4-7].'], {
      pipeline: 'small',
    }).finally(stop);
    // The sources went out before the summarizing call, not after it.
    expect(callsBeforeSources).toBe(0);
    expect(trace.calls!.map((c) => [c.purpose, c.stage])).toEqual([
      ['evidence-summary', 'summarize'],
      ['answer', 'chat'],
    ]);
    const [summaryPrompt, answerPrompt] = prompts();
    // The evidence in ranked order (which file ranks first is the search's business, not this test's).
    expect(summaryPrompt).toMatch(/^Question: Where are the settings loaded\?\n\n## Evidence\n\[Source: [\w/.]+:\d+-\d+\]/);
    expect(summaryPrompt).toMatch(/\n\[Source: config\.py:\d+-\d+\]\n/);
    expect(answerPrompt).toContain('## Evidence (condensed for the question)\nload_config(path) in [config.py:4-7] opens the file and returns json.load.');
    // The summary named config.py only: the other sources are listed under it, not lost.
    expect(answerPrompt).toMatch(/\nOther sources given: .*\[app\.py:\d+-\d+\]/);
    expect(answerPrompt).not.toContain('```');
    expect(trace.rounds![0]).toMatchObject({ budget: 'summarized', budgetTokens: 40, summary: expect.stringMatching(/^load_config\(path\) in \[config\.py:4-7\] opens the file and returns json\.load\.\nOther sources given: /) });
    expect(trace.rounds![0]!.notes[0]).toMatch(/was over the budget of 40 tokens and was condensed for the question/);
    expect(message.sources!.map((s) => s.path)).toContain('app.py');
  });

  it('a pipeline that trims instead of summarizing: no summarizing call, the worst evidence left out and logged as excluded', async () => {
    pipelineFile(
      'trim.yaml',
      [
        'pipeline:',
        '  name: trim',
        '  extends: default',
        '  settings: {max_context_tokens: 40}',
        '  steps:',
        '    - {id: budget, action: check_context_budget, on_ok: answer, on_over_limit: cut}',
        '    - {id: cut, action: trim_context, next: answer}',
      ].join('\n'),
    );
    const { trace, message } = await ask('Where are the settings loaded?', ['[Answer:] In load_config.'], { pipeline: 'trim' });
    expect(trace.calls!.map((c) => c.purpose)).toEqual(['answer']);
    expect(trace.pipeline!.warnings).toEqual([expect.stringContaining('step "summarize_evidence" is unreachable')]);
    expect(trace.rounds![0]).toMatchObject({ budget: 'trimmed' });
    expect(trace.rounds![0]!.evidenceTokens).toBeLessThanOrEqual(40);
    expect(trace.steps!.map((s) => s.id)).toContain('cut');
    const raw = openRawDatabase(repoPaths(fx.dataDir, repoId).raw);
    const excluded = raw.prepare("select reason from retrieval_decisions where run_id = ? and decision = 'excluded'").all(message.runId) as Array<{ reason: string }>;
    raw.close();
    expect(excluded.length).toBeGreaterThan(0);
    expect(JSON.parse(excluded[0]!.reason)).toMatchObject({ reasons: [{ kind: 'over-budget', detail: { tokens: expect.any(Number) } }] });
    expect(message.sources!.length).toBe(trace.rounds![0]!.fetched - excluded.length);
  });

  it('history over max_history_tokens becomes a rolling summary whose pointer is persisted and advanced', async () => {
    pipelineFile('short.yaml', 'pipeline:\n  name: short\n  extends: default\n  settings:\n    max_history_tokens: 60\n');
    const long = (n: number) => `[Answer:] ${'The settings are JSON read by load_config in config.py. '.repeat(6)}(${n})`;
    const first = await ask('Where are the settings loaded?', [long(1)], { pipeline: 'short' });
    const id = first.conversationId;
    expect(first.trace.history).toMatchObject({ messages: 0, tokens: 0 });

    server.requests.length = 0;
    const second = await ask('Who calls it?', ['S1: load_config in config.py reads JSON settings.', long(2)], { pipeline: 'short', conversationId: id });
    expect(second.trace.calls!.map((c) => c.purpose)).toEqual(['history-summary', 'answer']);
    const [summaryPrompt, answerPrompt] = prompts();
    expect(summaryPrompt).toMatch(/^New question: Who calls it\?\n\nConversation to fold in:\nUser: Where are the settings loaded\?\nAssistant: The settings are JSON/);
    expect(answerPrompt).toMatch(/^## Conversation so far\nSummary of the earlier conversation: S1: load_config in config\.py reads JSON settings\.\n\n## Evidence/);
    const history = (await core.handlers['chat/history']({ repoId, conversationId: id })).messages;
    expect(second.trace.history!.summary).toEqual({ text: 'S1: load_config in config.py reads JSON settings.', throughMessageId: history[1]!.id, created: true });

    // Over budget again (summary + the new long turn): the summary and the new turns are re-summarized; the pointer moves.
    server.requests.length = 0;
    const third = await ask('And where is it imported?', ['S2: app.py calls load_config; config.py defines it.', '[Answer:] In app.py [app.py:1].'], { pipeline: 'short', conversationId: id });
    expect(prompts()[0]).toMatch(/^New question: And where is it imported\?\n\nSummary so far:\nS1: load_config in config\.py reads JSON settings\.\n\nConversation to fold in:\nUser: Who calls it\?/);
    const afterThird = (await core.handlers['chat/history']({ repoId, conversationId: id })).messages;
    expect(third.trace.history!.summary).toMatchObject({ text: 'S2: app.py calls load_config; config.py defines it.', throughMessageId: afterThird[3]!.id, created: true });

    // Within budget: the stored summary plus the raw turns after it, no summarizing call.
    server.requests.length = 0;
    const fourth = await ask('Thanks, anything else?', ['[Answer:] No.'], { pipeline: 'short', conversationId: id });
    expect(fourth.trace.calls!.map((c) => c.purpose)).toEqual(['answer']);
    expect(fourth.trace.history).toMatchObject({ messages: 2, summary: { text: 'S2: app.py calls load_config; config.py defines it.', created: false } });
    expect(prompts()[0]).toMatch(/^## Conversation so far\nSummary of the earlier conversation: S2: [^\n]*\nUser: And where is it imported\?\nAssistant: In app\.py \[app\.py:1\]\.\n/);
    expectLogged(second.message);
  });
});

describe('languages', () => {
  it('a Polish question is translated in, answered in English, and the answer translated back; both calls in the trace', async () => {
    const { trace, tokens, message } = await ask('Gdzie są wczytywane ustawienia aplikacji?', [
      'Where are the application settings loaded?',
      '[Answer:] They are read by load_config [config.py:1-3].',
      { chunks: ['<think>translate</think>Są wczytywane ', 'przez load_config [config.py:1-3].'] },
    ]);
    expect(trace.language).toEqual({ language: 'pl', source: 'detected', confidence: expect.any(Number), translated: true, question: 'Where are the application settings loaded?' });
    expect(trace.calls!.map((c) => c.purpose)).toEqual(['translate-in', 'answer', 'translate-out']);
    expect(tokens).toBe('Są wczytywane przez load_config [config.py:1-3].');
    expect(message.content).toBe(tokens);
    expect(message.citations![0]).toMatchObject({ path: 'config.py', status: 'source' });
    const [inPrompt, answerPrompt, outPrompt] = prompts();
    expect(inPrompt).toBe('Gdzie są wczytywane ustawienia aplikacji?');
    expect(answerPrompt).toMatch(/## Question\nWhere are the application settings loaded\?$/);
    expect(outPrompt).toBe('They are read by load_config [config.py:1-3].');
    const systems = server.requests.filter((r) => r.path === '/api/chat').map((r) => (r.body as { messages: Array<{ content: string }> }).messages[0]!.content);
    expect(systems[0]).toMatch(/^Translate the user's text into English\./);
    expect(systems[2]).toMatch(/^Translate the user's text into Polish\./);
    expectLogged(message);
  });

  it('a language chosen by the caller wins over detection; English needs no translation call', async () => {
    const chosen = await ask('Gdzie są wczytywane ustawienia aplikacji?', ['[Answer:] ok'], { language: 'en' });
    expect(chosen.trace.language).toMatchObject({ language: 'en', source: 'chosen', translated: false });
    expect(chosen.trace.calls!.map((c) => c.purpose)).toEqual(['answer']);
    server.requests.length = 0;
    const english = await ask('Explain load_config and what it returns', ['[Answer:] ok']);
    expect(english.trace.language).toMatchObject({ language: 'en', translated: false });
    expect(prompts()).toHaveLength(1);
  });

  it("uses the caller's detection (chat/ask detected: the CLI detects while the engine loads) instead of detecting again", async () => {
    // tinyld reads this question as Polish (the first test); the caller's detection says English, and is what the turn records.
    const english = await ask('Gdzie są wczytywane ustawienia aplikacji?', ['[Answer:] ok'], { detected: { language: 'en', confidence: 0.91 } });
    expect(english.trace.language).toEqual({ language: 'en', source: 'detected', confidence: 0.91, translated: false, question: 'Gdzie są wczytywane ustawienia aplikacji?' });
    expect(english.trace.calls!.map((c) => c.purpose)).toEqual(['answer']);
    // A language chosen by the caller still wins over a detection sent with it.
    const chosen = await ask('Where are the application settings loaded?', ['[Answer:] ok'], { language: 'en', detected: { language: 'pl', confidence: 1 } });
    expect(chosen.trace.language).toMatchObject({ language: 'en', source: 'chosen', translated: false });
  });
});

describe('pipelines of a repository', () => {
  it('an invalid pipeline is refused with the reason while the default keeps working', async () => {
    pipelineFile('broken.yaml', 'pipeline:\n  name: broken\n  extends: default\n  steps:\n    - id: route\n      action: route_question\n      on_retrieve: search\n      on_direct: answer\n');
    await expect(core.handlers['chat/ask']({ repoId, question: 'x', mode: 'bm25', pipeline: 'broken' })).rejects.toMatchObject({
      code: 'VALIDATION',
      message: expect.stringContaining('.cleanroom/pipelines/broken.yaml:5: pipeline "broken": step "route" goes to "search", which is not a step of this pipeline'),
    });
    const { trace, tokens } = await ask('Where is send_mail?', ['[Answer:] In mailer.py.']);
    expect(tokens).toBe('In mailer.py.');
    expect(trace.pipeline).toMatchObject({ name: 'default', problems: [expect.stringContaining('broken.yaml:5')] });
    const listed = await core.handlers['chat/pipelines']({ repoId });
    expect(listed.pipelines.map((p) => p.name)).toEqual(['default']);
    expect(listed.problems).toHaveLength(1);
    await expect(core.handlers['chat/ask']({ repoId, question: 'x', mode: 'bm25', pipeline: 'nope' })).rejects.toMatchObject({ code: 'VALIDATION', message: expect.stringContaining('There is no chat pipeline "nope"') });
  });

  it("the pipeline's retrieval settings drive the turn: mode, query expansion, edge allow-list, intent depth", async () => {
    pipelineFile(
      'mine.yaml',
      [
        'pipeline:',
        '  name: mine',
        '  extends: default',
        '  settings:',
        '    retrieval: {mode: bm25, query_expansion: 2}',
        '    graph:',
        '      edge_allowlist: [co-change]',
        '      intents: {SEARCH: {depth: 2, decay: 0.5}}',
      ].join('\n'),
    );
    const { trace } = await ask('Where is load_config?', ['- load config function\n- settings loader', '[Answer:] ok'], { mode: 'auto', pipeline: 'mine' });
    // No routing call: the pipeline fixed the mode.
    expect(trace.calls!.map((c) => [c.purpose, c.stage])).toEqual([
      ['query-expansion', 'routing'],
      ['answer', 'chat'],
    ]);
    expect(trace.route).toMatchObject({ mode: 'BM25', source: 'chosen' });
    expect(trace.notes).toContain('The retrieval mode bm25 is set by the pipeline "mine".');
    expect(trace.rounds![0]!.queries).toEqual(['Where is load_config?', 'load config function', 'settings loader']);
    expect(trace.rounds![0]!.expansion).toMatchObject({ depth: 2, decay: 0.5, edges: ['co-change'] });
  });
});

describe('routing inside a turn', () => {
  it('a broken router reply falls back deterministically and the trace says why, beside the routing call', async () => {
    const { trace } = await ask('What would break if I change load_config?', ['[KEYWORD:] load_config', '[Answer:] app.py'], { mode: 'auto' });
    expect(trace.route).toMatchObject({ mode: 'BM25', source: 'fallback', reason: 'unknown prefix [KEYWORD:]' });
    expect(trace.intent).toBe('IMPACT');
    expect(trace.rounds![0]!.expansion).toMatchObject({ depth: 3, decay: 0.4 });
    expect(trace.notes[0]).toBe("The router's reply broke the protocol (unknown prefix [KEYWORD:]): BM25 search with the question ran instead.");
    expect(trace.calls!.map((c) => [c.purpose, c.reply])).toEqual([
      ['routing', '[KEYWORD:] load_config'],
      ['answer', '[Answer:] app.py'],
    ]);
  });

  it('IMPACT walks reverse edges only; SUMMARY sends the repository overview ahead of the evidence', async () => {
    const impact = await ask('What would break if I change load_config?', ['[Answer:] app.py']);
    expect(impact.trace.rounds![0]!.expansion.edges).toEqual(['called-by', 'imported-by', 'co-change']);
    server.requests.length = 0;
    const summary = await ask('Summarize this codebase at a high level', ['[Answer:] A small app.']);
    expect(summary.trace.intent).toBe('SUMMARY');
    expect(prompts()[0]).toMatch(/^## Repository overview\n4 files, \d+ symbols, \d+ import edges, 3 commits\.\nLanguages: .*python 3/);
    expect(summary.trace.notes).toContain('SUMMARY: the repository overview (size, languages, most connected files) was sent ahead of the evidence.');
  });

  it('DIRECT answers without retrieval, sources (none) still first', async () => {
    const { seen, trace } = await ask('What is JSON?', ['[DIRECT:]', '[Answer:] A data format.'], { mode: 'auto' });
    expect(keysOf(seen)).toEqual(['chat/sources', 'chat/token', 'chat/done']);
    expect(of(seen, 'chat/sources')[0]!.sources).toEqual([]);
    expect(trace.rounds).toEqual([]);
    expect(trace.steps!.map((s) => s.id)).toEqual(['translate_in', 'load_history', 'route', 'answer', 'finalize']);
  });
});

describe('several chats at once', () => {
  it('two turns in flight interleave their streams and keep their own sources, answers and traces', async () => {
    // Each answer call is answered from its own question and holds after its first chunk until the
    // other answer's first token has arrived, so the two streams overlap whatever the timing.
    let mailStarted!: () => void;
    let settingsStarted!: () => void;
    const mailFirst = new Promise<void>((resolve) => (mailStarted = resolve));
    const settingsFirst = new Promise<void>((resolve) => (settingsStarted = resolve));
    server.script.respond = (prompt) =>
      prompt.includes('## Question\nWhere is send_mail?')
        ? { chunks: ['[Answer:] Mail ', 'goes out ', 'in [mailer.py:1-3].'], holdAfterFirst: settingsFirst }
        : prompt.includes('## Question\nWhere is load_config?')
          ? { chunks: ['[Answer:] Settings ', 'are read ', 'in [config.py:4-7].'], holdAfterFirst: mailFirst }
          : undefined;
    try {
      const tokens = new Map<string, string[]>();
      const order: string[] = [];
      const stop = core.events.on('chat/token', (e) => {
        if (e.text.startsWith('Mail')) mailStarted();
        if (e.text.startsWith('Settings')) settingsStarted();
        order.push(e.conversationId);
        tokens.set(e.conversationId, [...(tokens.get(e.conversationId) ?? []), e.text]);
      });
      const [a, b] = await Promise.all([
        core.handlers['chat/ask']({ repoId, question: 'Where is send_mail?', mode: 'bm25' }),
        core.handlers['chat/ask']({ repoId, question: 'Where is load_config?', mode: 'bm25' }),
      ]);
      await Promise.all([core.runs.wait(a.runId), core.runs.wait(b.runId)]);
      stop();
      const last = async (conversationId: string) => (await core.handlers['chat/history']({ repoId, conversationId })).messages.at(-1)!;
      const [ma, mb] = [await last(a.conversationId), await last(b.conversationId)];
      expect(ma.content).toBe('Mail goes out in [mailer.py:1-3].');
      expect(mb.content).toBe('Settings are read in [config.py:4-7].');
      expect(tokens.get(a.conversationId)!.join('')).toBe(ma.content);
      expect(tokens.get(b.conversationId)!.join('')).toBe(mb.content);
      expect(ma.sources![0]!.path).toBe('mailer.py');
      expect(mb.sources![0]!.path).toBe('config.py');
      expect(ma.trace!.calls!.map((c) => c.callId)).not.toEqual(mb.trace!.calls!.map((c) => c.callId));
      expect(ma.runId).toBe(a.runId);
      // The streams overlapped: each conversation got a token before the other's last one.
      expect(order.indexOf(b.conversationId)).toBeLessThan(order.lastIndexOf(a.conversationId));
      expect(order.indexOf(a.conversationId)).toBeLessThan(order.lastIndexOf(b.conversationId));
    } finally {
      server.script.respond = undefined;
    }
  });
});
