import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../platform/db/open';
import { openRawDatabase } from '../../platform/db/raw';
import { KnowledgeBase } from '../kb/knowledgeBase';
import { CURATED_MIGRATIONS } from '../kb/schema';
import { RawCallLog } from '../../platform/logs/callLog';
import { loopbackClient, useRetrievalHarness } from '../../testing/retrievalHarness';
import { parseDescription } from './describe';
import { enrichRepository, promoteEnrichment, storedDescriptions } from './enrich';

const h = useRetrievalHarness('qwen3:0.6b');
let raw: Db;
let n = 0;

beforeEach(() => {
  raw = openRawDatabase(join(h.fx.dataDir, `raw-${++n}.sqlite`));
});
afterEach(() => raw.close());

const chatCalls = () => h.server.requests.filter((r) => r.path === '/api/chat');
const promptOf = (i: number) => ((chatCalls()[i]?.body as { messages: Array<{ content: string }> }).messages.at(-1)?.content ?? '') as string;
/** A description of the file the prompt is about, named after its path. */
const describeReply = (prompt: string) => {
  const path = /^File: (.+)$/m.exec(prompt)?.[1] ?? '?';
  const domain = path.startsWith('web/') ? 'web' : 'arithmetic';
  return { purpose: `Handles ${path}.`, domain, module: path.split('/')[0] ?? '', concepts: [path.includes('tokenizer') ? 'Tokenizing' : 'calculation', 'Expressions'] };
};

function run(progress?: (done: number, total: number, path: string) => void) {
  return enrichRepository({
    kb: h.fx.kb,
    raw,
    llm: loopbackClient(h.server, raw),
    log: new RawCallLog(raw),
    runId: 'enrich-test',
    readSource: (path) => readFileSync(join(h.fx.repo.root, path), 'utf8'),
    ...(progress ? { progress } : {}),
  });
}

describe('reading a description', () => {
  it('takes the first JSON object with prose after it, lowercases concepts, and names what is wrong', () => {
    const ok = parseDescription('<think>hmm</think>{"purpose": "Parses {braces}.", "domain": "x", "module": "y", "concepts": ["A", "a"]}\n\nHope this helps! {not json}');
    expect(ok).toEqual({ ok: true, value: { purpose: 'Parses {braces}.', domain: 'x', module: 'y', concepts: ['a'] } });
    expect(parseDescription('Sure, here it is.')).toEqual({ ok: false, error: 'no JSON object' });
    expect(parseDescription('{"purpose": "x", "domain": "y"')).toMatchObject({ ok: false, error: expect.stringMatching(/not closed/) });
    expect(parseDescription('{"purpose": "", "domain": "y", "module": "z", "concepts": []}')).toMatchObject({ ok: false, error: expect.stringMatching(/^purpose: /) });
  });
});

describe('enrichRepository', () => {
  it('describes every indexed file with the enrich stage model, reading JSON followed by prose, with progress', async () => {
    // Every other reply has trailing prose, as small models write it.
    let k = 0;
    h.server.script.respond = (prompt) => ({ text: `${JSON.stringify(describeReply(prompt))}${k++ % 2 ? '\n\nThis file is central to the calculator.' : ''}` });
    const seen: Array<[number, number]> = [];
    const summary = await run((done, total) => seen.push([done, total]));
    const files = h.fx.kb.getFiles().length;
    expect(summary).toMatchObject({ files, enriched: files, alreadyDone: 0, failed: 0, model: 'qwen3:0.6b' });
    expect(chatCalls()).toHaveLength(files);
    expect(seen[0]).toEqual([0, files]);
    expect(seen.at(-1)).toEqual([files, files]);
    const stored = storedDescriptions(raw);
    const tok = [...stored.values()].find((d) => d.path === 'calc/tokenizer.py')!;
    expect(tok).toMatchObject({ purpose: 'Handles calc/tokenizer.py.', domain: 'arithmetic', module: 'calc', concepts: ['tokenizing', 'expressions'] });
    expect(tok.contentHash).toBe(h.fx.kb.getFileByPath('calc/tokenizer.py')!.contentHash);
    // The call is logged under the enrich stage, with structured output asked for and the file's source shown.
    expect(raw.prepare("select count(*) from model_calls where stage = 'enrich'").pluck().get()).toBe(files);
    expect((chatCalls()[0]!.body as { format?: unknown }).format).toMatchObject({ required: ['purpose', 'domain', 'module', 'concepts'] });
    expect(chatCalls().map((_, i) => promptOf(i)).find((p) => p.startsWith('File: calc/tokenizer.py'))).toMatch(/Defines:\n {2}def tokenize\(text\)[\s\S]*Source:\nimport re/);
  });

  it('resumes: a second run skips files already described; a file whose replies were invalid twice is retried next time only', async () => {
    h.server.script.respond = (prompt) => (prompt.startsWith('File: calc/units.py') ? { text: 'Sure! units.py converts feet to meters.' } : { json: describeReply(prompt) });
    const first = await run();
    const files = h.fx.kb.getFiles().length;
    expect(first).toMatchObject({ enriched: files - 1, failed: 1 });
    // units.py was asked twice; the retry said what was wrong.
    const units = chatCalls().map((_, i) => promptOf(i)).filter((p) => p.startsWith('File: calc/units.py'));
    expect(units).toHaveLength(2);
    expect(units[1]).toMatch(/Your previous reply was invalid \(no JSON object\)\. Reply again with the JSON object only\.$/);
    expect([...storedDescriptions(raw).values()].map((d) => d.path)).not.toContain('calc/units.py');

    h.server.requests.length = 0;
    h.server.script.respond = (prompt) => ({ json: describeReply(prompt) });
    const second = await run();
    expect(second).toMatchObject({ files, enriched: 1, alreadyDone: files - 1, failed: 0 });
    expect(chatCalls().map((_, i) => promptOf(i).split('\n')[0])).toEqual(['File: calc/units.py']);

    h.server.requests.length = 0;
    expect(await run()).toMatchObject({ enriched: 0, alreadyDone: files });
    expect(chatCalls()).toHaveLength(0);
  });

  it('stops at a server error and keeps what it described before it', async () => {
    let k = 0;
    h.server.script.respond = (prompt) => (k++ === 2 ? { fault: 'http500' } : { json: describeReply(prompt) });
    await expect(run()).rejects.toThrow();
    expect(storedDescriptions(raw).size).toBe(2);
  });
});

describe('promotion into the index', () => {
  it('copies current descriptions into file_metadata, readable through the KnowledgeBase; files without one lose stale metadata', async () => {
    h.server.script.respond = (prompt) => ({ json: describeReply(prompt) });
    await run();
    const curatedFile = join(h.fx.dataDir, 'curated.sqlite');
    const curated = openDatabase(curatedFile, { migrations: CURATED_MIGRATIONS });
    const kb = KnowledgeBase.open(curatedFile, 'calc');
    try {
      const tokId = kb.getFileByPath('calc/tokenizer.py')!.id;
      // Not promoted yet: nothing for tier 4.
      expect(kb.fileMetadata([tokId])).toEqual([]);
      expect(kb.searchFileMetadata(['tokenizing'])).toEqual([]);
      const files = kb.getFiles().length;
      expect(promoteEnrichment(curated, raw)).toBe(files);
      expect(kb.fileMetadata([tokId])).toEqual([{ fileId: tokId, path: 'calc/tokenizer.py', domain: 'arithmetic', module: 'calc', concepts: ['tokenizing', 'expressions'], summary: 'Handles calc/tokenizer.py.' }]);
      const hits = kb.searchFileMetadata(['Tokenizing', 'web', 'xx']);
      expect(hits[0]).toMatchObject({ path: 'calc/tokenizer.py', score: 2, matched: ['tokenizing'] });
      expect(hits.filter((x) => x.domain === 'web').map((x) => x.path).sort()).toEqual(['web/format.ts', 'web/page.ts']);
      // A description of an older content does not count: the file's metadata goes.
      raw.prepare("update file_enrichment set content_hash = 'old' where path = 'calc/tokenizer.py'").run();
      expect(promoteEnrichment(curated, raw)).toBe(files - 1);
      expect(kb.fileMetadata([tokId])).toEqual([]);
    } finally {
      kb.close();
      curated.prepare('delete from file_metadata').run();
      curated.close();
    }
  });
});
