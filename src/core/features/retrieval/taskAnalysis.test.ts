import { beforeEach, describe, expect, it, vi } from 'vitest';
import { parseToml, validateConfig } from '../../platform/config/load';
import type { Db } from '../../platform/db/open';
import { openRawDatabase } from '../../platform/db/raw';
import { LlmClient } from '../../platform/llm/client';
import { ModelRouter } from '../../platform/llm/router';
import { RawCallLog } from '../../platform/logs/callLog';
import { analyzeTask, parseEnrichment } from './taskAnalysis';
import { extractTask } from './taskExtract';
import { useRetrievalHarness } from '../../testing/retrievalHarness';

let db: Db;

const h = useRetrievalHarness('qwen3:1.7b');
beforeEach(() => {
  db = openRawDatabase(':memory:');
});

function llm(): LlmClient {
  const toml = `[models]\nreasoning = "qwen3:1.7b"\ncoding = "qwen3:1.7b"\nbase_url = "${h.server.url}"\n`;
  const router = new ModelRouter({ values: validateConfig(parseToml(toml, 't'), 't'), files: ['t'], primaryFile: 't' });
  return new LlmClient({ router: () => router, log: new RawCallLog(db), retry: { attempts: 1 } });
}

describe('deterministic extraction', () => {
  it('resolves named files and symbols against the index and keeps unknown files as unresolved', () => {
    const x = extractTask('In tokenizer.py, make `tokenize` keep newlines; Parser.parse and feet_to_meters are fine. See calc/missing.py.', h.fx.kb);
    expect(x.files).toEqual([
      { text: 'tokenizer.py', path: 'calc/tokenizer.py' },
      { text: 'calc/missing.py', path: null },
    ]);
    expect(x.symbols.map((s) => [s.text, s.definedIn])).toEqual([
      ['tokenize', ['calc/tokenizer.py']],
      ['Parser.parse', ['calc/parser.py']],
      ['feet_to_meters', ['calc/units.py']],
    ]);
    expect(x.taskType).toBe('other');
    expect(x.keywords).toEqual(expect.arrayContaining(['tokenizer', 'tokenize', 'newlines', 'parser']));
    expect(x.keywords).not.toContain('the');
  });

  it('reads the index\'s file list once, and only for a text that names a path or has a stack frame', () => {
    const getFiles = vi.spyOn(h.fx.kb, 'getFiles');
    try {
      const plain = extractTask('Make `tokenize` keep newlines', h.fx.kb);
      expect(plain.symbols.map((s) => s.text)).toEqual(['tokenize']);
      expect(getFiles).not.toHaveBeenCalled();
      const named = extractTask('Compare calc/parser.py with tokenizer.py', h.fx.kb);
      expect(named.files.map((f) => f.path)).toEqual(['calc/parser.py', 'calc/tokenizer.py']);
      expect(getFiles).toHaveBeenCalledTimes(1);
    } finally {
      getFiles.mockRestore();
    }
  });

  it('reads a Python traceback: error type and message, frames with indexed paths, lines and functions', () => {
    const trace = `Traceback (most recent call last):
  File "/home/me/src/calc/evaluator.py", line 6, in evaluate
  File "/home/me/src/calc/parser.py", line 8, in parse
  File "/usr/lib/python3.12/re/__init__.py", line 217, in findall
ValueError: unexpected token '\\n'`;
    const x = extractTask(`Fix this crash:\n${trace}`, h.fx.kb);
    expect(x.taskType).toBe('bugfix');
    expect(x.errors).toEqual([
      {
        type: 'ValueError',
        message: "unexpected token '\\n'",
        language: 'python',
        frames: [
          { file: '/home/me/src/calc/evaluator.py', path: 'calc/evaluator.py', line: 6, function: 'evaluate' },
          { file: '/home/me/src/calc/parser.py', path: 'calc/parser.py', line: 8, function: 'parse' },
          { file: '/usr/lib/python3.12/re/__init__.py', path: null, line: 217, function: 'findall' },
        ],
      },
    ]);
    expect(x.files.map((f) => f.path)).toEqual(['calc/evaluator.py', 'calc/parser.py', null]);
    expect(x.symbols.map((s) => s.text)).toEqual(expect.arrayContaining(['evaluate', 'parse']));
  });

  it('takes keywords from the query analysis: not from a pasted session banner or output', () => {
    const text = ['Parsing keeps newlines:', '```', 'Python 3.12.1 on linux', 'Type "help", "copyright", "credits" or "license" for more information.', '>>> from calc.parser import parse', '>>> parse("1 +\\n 2")', "SyntaxError: unexpected token '\\n'", '```'].join('\n');
    const x = extractTask(text, h.fx.kb);
    expect(x.keywords).toEqual(expect.arrayContaining(['parsing', 'newlines', 'calc', 'parser', 'parse', 'syntaxerror']));
    for (const banner of ['copyright', 'credits', 'license', 'linux', 'information']) expect(x.keywords).not.toContain(banner);
  });

  it('reads a JavaScript/TypeScript stack trace', () => {
    const x = extractTask(`TypeError: Cannot read properties of undefined (reading 'toFixed')\n    at formatResult (/app/web/format.ts:2:16)\n    at renderPage (web/page.ts:4:15)`, h.fx.kb);
    expect(x.errors).toEqual([
      {
        type: 'TypeError',
        message: "Cannot read properties of undefined (reading 'toFixed')",
        language: 'javascript',
        frames: [
          { file: '/app/web/format.ts', path: 'web/format.ts', line: 2, function: 'formatResult' },
          { file: 'web/page.ts', path: 'web/page.ts', line: 4, function: 'renderPage' },
        ],
      },
    ]);
    expect(x.symbols.map((s) => s.text)).toEqual(expect.arrayContaining(['formatResult', 'renderPage']));
  });

  it('classifies the task type by its wording', () => {
    const type = (t: string) => extractTask(t, h.fx.kb).taskType;
    expect(type('Rename the evaluator module')).toBe('refactor');
    expect(type('Add support for exponent operators')).toBe('feature');
    expect(type('Write unit tests for the units module')).toBe('test');
    expect(type('Document the parser in the README')).toBe('docs');
  });
});

describe('model enrichment', () => {
  const GOOD = { intent: 'Keep newline tokens in the tokenizer.', files: ['calc/tokenizer.py', 'calc/lexer.py'], symbols: ['tokenize', 'lex'], concepts: ['tokenization'] };

  it('asks with a JSON schema and keeps both parts; files and symbols the index lacks are set apart or dropped', async () => {
    h.server.script.chat.push({ json: GOOD });
    const record = await analyzeTask('The tokenizer drops newlines', h.fx.kb, { llm: llm(), id: 't1' });
    expect(record.extraction.taskType).toBe('other');
    expect(record.enrichment).toMatchObject({ status: 'ok', intent: GOOD.intent, files: ['calc/tokenizer.py'], unknownFiles: ['calc/lexer.py'], symbols: ['tokenize'], concepts: ['tokenization'], attempts: 1 });
    const body = h.server.requests.at(-1)?.body as Record<string, unknown>;
    expect(body).toMatchObject({ think: false, format: { required: ['intent', 'files', 'symbols', 'concepts'] } });
    expect(db.prepare('select stage from model_calls').pluck().all()).toEqual(['task_analysis']);
  });

  it('retries once with the validation error, then succeeds', async () => {
    h.server.script.chat.push({ text: '{"intent": "Keep newlines", "files": "calc/tokenizer.py"} done' }, { text: `<think>ok</think>${JSON.stringify(GOOD)}` });
    const record = await analyzeTask('The tokenizer drops newlines', h.fx.kb, { llm: llm() });
    expect(record.enrichment).toMatchObject({ status: 'ok', attempts: 2 });
    const retry = (h.server.requests.at(-1)?.body as { messages: Array<{ content: string }> }).messages.at(-1)?.content;
    expect(retry).toMatch(/previous reply was invalid \(files: .*\)/);
    expect(record.enrichment.callIds).toHaveLength(2);
  });

  it('records a failure after two invalid replies and keeps the deterministic part', async () => {
    h.server.script.chat.push({ text: 'I cannot help with that.' }, { text: '{"intent": ""}' });
    const record = await analyzeTask('Fix tokenize in calc/tokenizer.py', h.fx.kb, { llm: llm() });
    expect(record.enrichment).toMatchObject({ status: 'failed', attempts: 2 });
    expect((record.enrichment as { reason: string }).reason).toMatch(/invalid reply twice: .*intent/);
    expect(record.extraction.files).toEqual([{ text: 'calc/tokenizer.py', path: 'calc/tokenizer.py' }]);
  });

  it('records a model server failure as failed enrichment, and a missing client as skipped', async () => {
    h.server.script.chat.push({ fault: 'http500' });
    expect((await analyzeTask('Fix tokenize', h.fx.kb, { llm: llm() })).enrichment).toMatchObject({ status: 'failed', attempts: 1 });
    expect((await analyzeTask('Fix tokenize', h.fx.kb)).enrichment).toMatchObject({ status: 'skipped' });
    await expect(analyzeTask('   ', h.fx.kb)).rejects.toThrow(/empty/);
  });

  it('parses JSON between thinking and prose, and names what is invalid', () => {
    expect(parseEnrichment('<think>x</think>Here: {"intent":"a","files":[],"symbols":[],"concepts":[]} ok')).toMatchObject({ ok: true });
    expect(parseEnrichment('{"intent":"a","files":[1],"symbols":[],"concepts":[]}')).toMatchObject({ ok: false, error: expect.stringContaining('files.0') });
    expect(parseEnrichment('nothing')).toEqual({ ok: false, error: 'no JSON object' });
  });
});
