import { beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../platform/db/open';
import { openRawDatabase } from '../../platform/db/raw';
import type { LlmClient } from '../../platform/llm/client';
import type { ScriptedReply } from '../../testing/ollamaTestServer';
import { RawDecisionLog } from './decisionLog';
import { runPipeline, type ContextFile, type RetrievalStage } from './stage';
import { GROUP_QUESTION, PRECISION_QUESTIONS, PrecisionStage, symbolCandidates } from './stages/precision';
import { importBindings, namesInAssertion } from './stages/precisionExtract';
import { SCOPE_QUESTION, ScopeStage } from './stages/scope';
import { analyzeTask, type TaskRecord } from './taskAnalysis';
import { loopbackClient, useRetrievalHarness } from '../../testing/retrievalHarness';

// The precision cascade over real HTTP to the loopback server, on a real indexed git fixture.

let raw: Db;
let llm: LlmClient;
const TASK = 'Fix `tokenize` in calc/tokenizer.py: it drops newline characters';

const h = useRetrievalHarness('qwen3:0.6b');
beforeEach(() => {
  raw = openRawDatabase(':memory:');
  llm = loopbackClient(h.server, raw);
});

const task = (text = TASK): Promise<TaskRecord> => analyzeTask(text, h.fx.kb, { id: 'task-1' });

type Question = 'scope' | keyof typeof PRECISION_QUESTIONS;
/** Answer by the question in the system prompt (calls run one at a time, so the last request is this one) and the item. */
function scriptBy(answers: (question: Question, item: string) => ScriptedReply) {
  h.server.script.respond = (prompt) => {
    const messages = (h.server.requests.at(-1)?.body as { messages: Array<{ role: string; content: string }> }).messages;
    const system = messages[0]?.content ?? '';
    const question = (Object.entries(PRECISION_QUESTIONS).find(([, q]) => system.includes(q))?.[0] ?? (system.includes(SCOPE_QUESTION) ? 'scope' : undefined)) as Question | undefined;
    if (!question) throw new Error(`unexpected system prompt: ${system}`);
    const item = /(?:symbol|path): (\S+)/.exec(prompt)?.[1] ?? '';
    return answers(question, item);
  };
}

const decisions = (stage: string) =>
  Object.fromEntries((raw.prepare('select subject, decision from retrieval_decisions where stage = ? order by id').all(stage) as Array<{ subject: string; decision: string }>).map((r) => [r.subject, r.decision]));

describe('symbol extraction', () => {
  it('puts symbols the task names first, then symbols linked to them by a reference, then the rest by how many task words their code holds', async () => {
    const files = [
      { fileId: h.fx.kb.getFileByPath('calc/tokenizer.py')!.id, path: 'calc/tokenizer.py', tier: 1, reasons: [] },
      { fileId: h.fx.kb.getFileByPath('calc/parser.py')!.id, path: 'calc/parser.py', tier: 2, reasons: [] },
    ];
    const c = symbolCandidates(h.fx.kb, await task(), files);
    expect(c.map((x) => [x.symbol.qualifiedName, x.named, x.found.map((r) => r.kind)])).toEqual([
      ['tokenize', true, ['named-in-task']],
      ['Parser.parse', false, ['symbol-link']],
      // The class's code calls tokenize (a task word) and _split_lines' does not: the class comes first.
      ['Parser', false, []],
      ['_split_lines', false, []],
      ['Parser.expression', false, []],
    ]);
    expect(c[1]!.found[0]).toEqual({ kind: 'symbol-link', detail: { symbol: 'tokenize', direction: 'calls' } });
  });
});

describe('test assertions', () => {
  it('reads the names an assertion uses, in Python, unittest, pytest, Jest/Vitest, node:assert and AVA form', () => {
    expect(namesInAssertion('    assert tokenize("1+2") == ["1", "+", "2"]')).toEqual(['tokenize']);
    expect(namesInAssertion('        self.assertEqual(parse_header(value), expected)')).toEqual(['parse_header', 'value', 'expected']);
    expect(namesInAssertion('    with pytest.raises(ValueError):')).toEqual(['ValueError']);
    expect(namesInAssertion("  expect(formatResult(2)).toBe('2.00');")).toEqual(['formatResult']);
    expect(namesInAssertion('  assert.deepEqual(router.match(path), route);')).toEqual(['router', 'match', 'path', 'route']);
    expect(namesInAssertion("  t.is(normalizeUrl('x'), 'y');")).toEqual(['normalizeUrl']);
    expect(namesInAssertion('    result = tokenize(text)')).toEqual([]);
  });

  it('puts a symbol named in an assertion of a test among the files before the rest, with the test line as its reason', async () => {
    const files = [
      { fileId: h.fx.kb.getFileByPath('calc/tokenizer.py')!.id, path: 'calc/tokenizer.py', tier: 1, reasons: [] },
      { fileId: h.fx.kb.getFileByPath('tests/test_tokenizer.py')!.id, path: 'tests/test_tokenizer.py', tier: 2, reasons: [] },
    ];
    // The task's words are in _split_lines' code (lines, text), not in tokenize's: by them alone, _split_lines would come first.
    const c = symbolCandidates(h.fx.kb, await task('splitting lines loses text'), files);
    expect(c.map((x) => [x.symbol.qualifiedName, x.found])).toEqual([
      ['tokenize', [{ kind: 'test-assertion', detail: { test: 'tests/test_tokenizer.py', line: 5 } }]],
      ['_split_lines', []],
      ['test_tokenize', []],
    ]);
  });
});

describe('library symbols', () => {
  it('reads the local names a Python or JS/TS import binds, each to its name in the library', () => {
    const of = (language: string, specifier: string, text: string) => Object.fromEntries(importBindings(language, specifier, text));
    expect(of('python', 'httpx', 'from httpx import (Client, Timeout as T)')).toEqual({ Client: 'httpx.Client', T: 'httpx.Timeout' });
    expect(of('python', 'numpy', 'import numpy as np')).toEqual({ np: 'numpy' });
    expect(of('python', 'os.path', 'import os.path')).toEqual({ os: 'os' });
    expect(of('typescript', 'node:fs', "import fs, { readFile as rf, type Stats } from 'node:fs';")).toEqual({ rf: 'node:fs.readFile', Stats: 'node:fs.Stats', fs: 'node:fs.default' });
    expect(of('typescript', 'node:path', "import * as path from 'node:path';")).toEqual({ path: 'node:path' });
    expect(of('typescript', 'stream', "import type { Readable } from 'stream';")).toEqual({ Readable: 'stream.Readable' });
  });
});

describe('precision stage: the 3-pass cascade', () => {
  it('classifies each symbol by three binary passes, surviving odd replies, and logs each pass as its own decision', async () => {
    scriptBy((q, item) => {
      if (q === 'scope') return { json: { answer: item === 'calc/parser.py' || item === 'docs/CHANGELOG.md' ? 'yes' : 'no' } };
      const table: Record<string, Partial<Record<Question, ScriptedReply>>> = {
        'Parser.parse': { precision_pass1: { text: ' yes\n' }, precision_pass2: { text: 'no' }, precision_pass3: { json: { answer: 'yes' } } },
        _split_lines: { precision_pass1: { text: 'YES' }, precision_pass2: { text: 'No, it only splits' }, precision_pass3: { text: '' } },
        // A thinking model cut off mid-thought: default-deny, so excluded.
        Parser: { precision_pass1: { text: '<think>\nThe class holds parse, which calls', doneReason: 'length' } },
        // Not a bare yes: a default-deny, so excluded (strict reading).
        'Parser.expression': { precision_pass1: { text: 'yes, because parse returns through it' } },
        tokenize: { precision_pass2: { json: { answer: 'yes' }, logprobs: [{ token: '{"answer":"', logprob: -0.001 }, { token: 'yes', logprob: -0.1, top: [{ token: 'yes', logprob: -0.1 }, { token: 'no', logprob: -2.4 }] }, { token: '"}', logprob: -0.001 }] } },
      };
      const reply = table[item]?.[q];
      if (!reply) throw new Error(`no script for ${q} ${item}`);
      return reply;
    });
    const result = await runPipeline({ stages: [new ScopeStage({ searchSeeds: 0 }), new PrecisionStage()], kb: h.fx.kb, task: await task(), llm, runId: 'run-p', budgetTokens: 28_000, decisions: new RawDecisionLog(raw) });
    const files = result.context.files;
    expect(files.map((f) => [f.path, (f.symbols ?? []).map((s) => [s.qualifiedName, s.role])])).toEqual([
      // tokenize calls re.findall: `import re` is a library symbol, type_context without a judgment.
      ['calc/tokenizer.py', [['tokenize', 'primary'], ['_split_lines', 'type_context'], ['re.findall', 'type_context']]],
      ['calc/parser.py', [['Parser.parse', 'supporting']]],
      ['docs/CHANGELOG.md', []],
    ]);
    expect(files[0]!.symbols![2]).toMatchObject({ symbolId: null, kind: 'library', signature: 'import re', startLine: 1, endLine: 1, reasons: [{ kind: 'library', detail: { module: 're' } }] });
    expect(decisions('precision')).toEqual({ 'calc/tokenizer.py:re.findall': 'type_context' });
    const tokenize = files[0]!.symbols![0]!;
    expect(tokenize.reasons).toEqual([
      { kind: 'named-in-task', detail: { text: 'tokenize' } },
      { kind: 'precision-verdict', detail: { pass: 2, answer: 'yes', model: 'qwen3:0.6b', probability: expect.closeTo(Math.exp(-0.1) / (Math.exp(-0.1) + Math.exp(-2.4)), 6) } },
    ]);
    expect(files[1]!.symbols![0]!.reasons.map((r) => r.kind)).toEqual(['symbol-link', 'judged-relevant', 'precision-verdict', 'precision-verdict']);
    expect(files[0]!.symbols![1]!.reasons.at(-1)).toEqual({ kind: 'default-deny', detail: { model: 'qwen3:0.6b', cause: 'empty' } });

    // Each pass is its own stage in the raw log; the named symbol skipped pass 1's call.
    expect(decisions('precision_pass1')).toEqual({ 'calc/tokenizer.py:tokenize': 'relevant', 'calc/parser.py:Parser.parse': 'relevant', 'calc/tokenizer.py:_split_lines': 'relevant', 'calc/parser.py:Parser': 'excluded', 'calc/parser.py:Parser.expression': 'excluded' });
    expect(decisions('precision_pass2')).toEqual({ 'calc/tokenizer.py:tokenize': 'primary', 'calc/parser.py:Parser.parse': 'not-primary', 'calc/tokenizer.py:_split_lines': 'not-primary' });
    expect(decisions('precision_pass3')).toEqual({ 'calc/parser.py:Parser.parse': 'supporting', 'calc/tokenizer.py:_split_lines': 'type_context' });
    const calls = raw.prepare('select stage, count(*) as n from model_calls group by stage order by stage').all();
    expect(calls).toEqual([
      { stage: 'precision_pass1', n: 4 },
      { stage: 'precision_pass2', n: 3 },
      { stage: 'precision_pass3', n: 2 },
      { stage: 'scope', n: 3 },
    ]);
    // Every judged decision points at its own call; the cut-off one records why it was denied.
    const parser = raw.prepare("select reason, model_call_id from retrieval_decisions where subject = 'calc/parser.py:Parser'").get() as { reason: string; model_call_id: number };
    expect(parser.model_call_id).toBeGreaterThan(0);
    expect(JSON.parse(parser.reason)).toMatchObject({ reasons: [{ kind: 'default-deny', detail: { cause: 'cut-off' } }], judgment: { read: 'default-deny', denyCause: 'cut-off' } });
    expect(result.stages.map((s) => s.name)).toEqual(['scope', 'precision']);
  });

  it('drops a file none of whose symbols is kept, and records it', async () => {
    scriptBy((q, item) => ({ json: { answer: q === 'scope' ? (item === 'calc/parser.py' ? 'yes' : 'no') : q === 'precision_pass2' ? 'yes' : 'no' } }));
    const result = await runPipeline({ stages: [new ScopeStage({ searchSeeds: 0 }), new PrecisionStage()], kb: h.fx.kb, task: await task(), llm, runId: 'run-q', budgetTokens: 28_000, decisions: new RawDecisionLog(raw) });
    expect(result.context.files.map((f) => [f.path, f.symbols?.map((s) => `${s.qualifiedName}:${s.role}`)])).toEqual([['calc/tokenizer.py', ['tokenize:primary', 're.findall:type_context']]]);
    expect(decisions('precision')).toEqual({ 'calc/tokenizer.py:re.findall': 'type_context', 'calc/parser.py': 'excluded' });
  });

  it('judges a search hit without symbols once (scope\'s question); a named one goes in unjudged', async () => {
    const asked: string[] = [];
    let answer = 'no';
    h.server.script.respond = (prompt) => {
      const system = (h.server.requests.at(-1)?.body as { messages: Array<{ content: string }> }).messages[0]?.content ?? '';
      if (system.includes(SCOPE_QUESTION)) asked.push(/path: (\S+)/.exec(prompt)?.[1] ?? '');
      return { json: { answer } };
    };
    const t = await task();
    const changelog = { fileId: h.fx.kb.getFileByPath('docs/CHANGELOG.md')!.id, path: 'docs/CHANGELOG.md', tier: 1 };
    const given = (reasons: ContextFile['reasons']): RetrievalStage => ({ name: 'given', run: async (ctx) => ({ ...ctx, files: [{ ...changelog, reasons }] }) });
    const run = (reasons: ContextFile['reasons'], runId: string) => runPipeline({ stages: [given(reasons), new PrecisionStage()], kb: h.fx.kb, task: t, llm, runId, budgetTokens: 28_000, decisions: new RawDecisionLog(raw) });
    const seed = [{ kind: 'seed' as const, detail: { rank: 1 } }];
    expect((await run(seed, 'run-f1')).context.files).toEqual([]);
    expect(decisions('precision_file')).toEqual({ 'docs/CHANGELOG.md': 'excluded' });
    answer = 'yes';
    expect((await run(seed, 'run-f2')).context.files.map((f) => [f.path, f.reasons.map((r) => r.kind)])).toEqual([['docs/CHANGELOG.md', ['seed', 'judged-relevant']]]);
    expect(asked).toEqual(['docs/CHANGELOG.md', 'docs/CHANGELOG.md']);
    // Named in the task: in without a call.
    expect((await run([{ kind: 'named-in-task', detail: { text: 'CHANGELOG.md' } }], 'run-f3')).context.files.map((f) => f.path)).toEqual(['docs/CHANGELOG.md']);
    expect(asked).toHaveLength(2);
    expect(raw.prepare("select count(*) from model_calls where stage = 'precision_file'").pluck().get()).toBe(2);
  });

  it('judges the symbols past the caps in groups, one call per group, and keeps a yes group as signatures', async () => {
    const items: string[] = [];
    h.server.script.respond = (prompt) => {
      const system = (h.server.requests.at(-1)?.body as { messages: Array<{ content: string }> }).messages[0]?.content ?? '';
      if (system.includes(SCOPE_QUESTION)) return { json: { answer: prompt.includes('path: calc/parser.py') ? 'yes' : 'no' } };
      if (system.includes(GROUP_QUESTION)) {
        const item = prompt.slice(prompt.lastIndexOf('Item:\n'));
        items.push(item);
        return { json: { answer: item.includes(' Parser.parse (method)') ? 'yes' : 'no' } };
      }
      return { json: { answer: system.includes(PRECISION_QUESTIONS.precision_pass2) ? 'yes' : 'no' } };
    };
    // One symbol judged one by one: the named tokenize (never capped); the other four go to groups of two.
    const result = await runPipeline({ stages: [new ScopeStage({ searchSeeds: 0 }), new PrecisionStage({ maxSymbols: 1, groupSize: 2 })], kb: h.fx.kb, task: await task(), llm, runId: 'run-g', budgetTokens: 28_000, decisions: new RawDecisionLog(raw) });
    expect(result.context.files.map((f) => [f.path, f.symbols?.map((s) => `${s.qualifiedName}:${s.role}`)])).toEqual([
      ['calc/tokenizer.py', ['tokenize:primary', 're.findall:type_context']],
      ['calc/parser.py', ['Parser:type_context', 'Parser.parse:type_context']],
    ]);
    // Each group lists its file and each symbol's lines, name and kind.
    expect(items).toHaveLength(3);
    expect(items.find((i) => i.includes('Parser.parse'))).toMatch(/file: calc\/parser\.py\nsymbols \(2\):\n {2}7-9 Parser\.parse \(method\): def parse\(self, text\)\n {2}\d+-\d+ Parser \(class\)/);
    const parse = result.context.files[1]!.symbols!.find((s) => s.qualifiedName === 'Parser.parse')!;
    expect(parse.reasons).toEqual([{ kind: 'symbol-link', detail: { symbol: 'tokenize', direction: 'calls' } }, { kind: 'group-verdict', detail: { size: 2, answer: 'yes', model: 'qwen3:0.6b', probability: 1 } }]);
    expect(decisions('precision_group')).toEqual({ 'calc/parser.py:Parser.parse': 'type_context', 'calc/parser.py:Parser': 'type_context', 'calc/tokenizer.py:_split_lines': 'excluded', 'calc/parser.py:Parser.expression': 'excluded' });
    expect(raw.prepare("select count(*) from model_calls where stage = 'precision_group'").pluck().get()).toBe(3);
  });
});
