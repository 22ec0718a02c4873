import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../platform/db/open';
import { openRawDatabase } from '../../platform/db/raw';
import { indexRepository } from '../indexer/indexer';
import { KnowledgeBase } from '../kb/knowledgeBase';
import type { LlmClient } from '../../platform/llm/client';
import { embedRepository } from '../search/embedRun';
import { createEmbedder, type Embedder } from '../search/embedder';
import { indexerDeps, makeIndexedRepo } from '../../testing/searchRepo';
import { OllamaTestServer } from '../../testing/ollamaTestServer';
import { loopbackClient } from '../../testing/retrievalHarness';
import { buildSummaries } from './build';
import { clusterVectors } from './cluster';
import { SummaryStore } from './store';

/** A deterministic stand-in for the embedding model: character trigrams hashed into 32 dimensions. */
function trigramEmbedder(): Embedder {
  return createEmbedder({
    id: 'test-trigram',
    dimensions: 32,
    embedBatch: async (texts) =>
      texts.map((t) => {
        const v = new Array<number>(32).fill(0);
        for (let i = 0; i + 3 <= t.length; i++) v[(t.charCodeAt(i) * 31 + t.charCodeAt(i + 1) * 7 + t.charCodeAt(i + 2)) % 32]! += 1;
        v[0]! += 1e-3;
        return v;
      }),
  });
}

// Three topics, eight files each: clusters should follow the topics.
const FILES: Record<string, string> = {};
for (let i = 0; i < 8; i++) {
  FILES[`billing/invoice_${i}.py`] = `def invoice_total_${i}(invoice, tax_rate):\n    """Sum the invoice lines and add the tax."""\n    return sum(line.amount for line in invoice.lines) * (1 + tax_rate)\n`;
  FILES[`mail/smtp_${i}.py`] = `class SmtpSender${i}:\n    """Deliver e-mail messages over SMTP."""\n\n    def send_message(self, recipient, message):\n        return self.connection.sendmail(recipient, message)\n`;
  FILES[`geometry/shape_${i}.py`] = `def polygon_area_${i}(points):\n    """Area of a polygon by the shoelace formula."""\n    return abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(points, points[1:]))) / 2\n`;
}

let server: OllamaTestServer;
let root: string;
let curatedFile: string;
let dataDir: string;
let llm: LlmClient;
const embedder = trigramEmbedder();
const prompts = () => server.requests.filter((r) => r.path === '/api/chat').map((r) => (r.body as { messages: Array<{ content: string }> }).messages.at(-1)!.content);

beforeAll(async () => {
  server = await OllamaTestServer.start();
  server.install('qwen3:0.6b');
  ({ root, curatedFile } = await makeIndexedRepo(FILES));
  const db = openDatabase(curatedFile);
  await embedRepository(db, embedder);
  db.close();
  dataDir = mkdtempSync(join(tmpdir(), 'cra-summaries-'));
  llm = loopbackClient(server, openRawDatabase(':memory:'));
}, 60_000);
afterAll(async () => {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(root, { recursive: true, force: true });
});
beforeEach(() => {
  server.requests.length = 0;
  // A thinking model's summary: the block is dropped, the files it was shown are named.
  server.script.respond = (prompt) => {
    const files = [...prompt.matchAll(/^### (\S+\.py)/gm)].map((m) => m[1]);
    return { text: `<think>which topic?</think>These files (${files.slice(0, 2).join(', ')}) ${prompt.includes('tax') ? 'compute invoice totals with tax' : prompt.includes('SMTP') ? 'send e-mail over SMTP' : prompt.includes('polygon') ? 'compute polygon areas' : 'make up the repository'}.` };
  };
});

function build(store: SummaryStore, signal?: AbortSignal) {
  const kb = KnowledgeBase.open(curatedFile, 'repo');
  return buildSummaries({ kb, store, embedder, complete: (p, o) => llm.complete(p, o), signal }).finally(() => kb.close());
}

describe('clustering', () => {
  it('is deterministic, never leaves a cluster empty, and gives one cluster when few vectors', () => {
    const vectors = Array.from({ length: 40 }, (_, i) => Float32Array.from([Math.cos(i), Math.sin(i), i % 3 === 0 ? 1 : 0]).map((x, _j, a) => x / Math.hypot(...a)));
    const a = clusterVectors(vectors, 8);
    expect(clusterVectors(vectors, 8)).toEqual(a);
    const k = Math.max(...a) + 1;
    expect(k).toBeLessThanOrEqual(5);
    for (let c = 0; c < k; c++) expect(a).toContain(c);
    expect(clusterVectors(vectors.slice(0, 5), 8)).toEqual([0, 0, 0, 0, 0]);
  });
});

describe('the summary tree', () => {
  it('summarises clusters of files level by level, retrieves by similarity, and rebuilds only what changed', async () => {
    const store = SummaryStore.open(join(dataDir, 'summaries.sqlite'));
    try {
      const first = await build(store);
      expect(first.reused).toBe(0);
      const levels = store.levels();
      expect(levels[0]!.level).toBe(1);
      expect(levels.at(-1)!.summaries).toBe(1); // one root
      expect(first.summarized).toBe(levels.reduce((n, l) => n + l.summaries, 0));
      expect(prompts()).toHaveLength(first.summarized);
      const all = store.all();
      expect(all.every((s) => !s.text.includes('<think>'))).toBe(true);
      // Level 1 covers every file once; the root covers them all.
      expect(all.filter((s) => s.level === 1).flatMap((s) => s.files).sort()).toEqual(Object.keys(FILES).sort());
      expect(all.at(-1)!.files).toHaveLength(24);
      const calls = server.requests.filter((r) => r.path === '/api/chat');
      expect((calls[0]!.body as { think?: boolean }).think).toBe(false);

      const [query] = await embedder.embed(['compute invoice totals with tax']);
      const hits = store.nearest(query!, embedder.id, { minScore: 0.5, limit: 3 });
      expect(hits[0]!.text).toContain('invoice totals');
      expect(hits.every((h) => h.score >= 0.5)).toBe(true);
      expect(store.nearest(query!, 'another-embedder', { minScore: 0, limit: 3 })).toEqual([]);

      // Nothing changed: nothing is asked again.
      server.requests.length = 0;
      const again = await build(store);
      expect(again).toMatchObject({ summarized: 0, reused: first.summarized });
      expect(prompts()).toHaveLength(0);

      // One file changes: only the clusters above it are summarised again.
      appendFileSync(join(root, 'mail/smtp_3.py'), '\n\ndef retry_send(sender, recipient, message):\n    return sender.send_message(recipient, message)\n');
      await indexRepository({ root, curatedFile, ...indexerDeps() });
      const db = openDatabase(curatedFile);
      await embedRepository(db, embedder);
      db.close();
      server.requests.length = 0;
      const changed = await build(store);
      expect(changed.summarized).toBeGreaterThan(0);
      expect(changed.summarized).toBeLessThan(first.summarized);
      expect(changed.reused).toBeGreaterThan(0);
      expect(prompts().some((p) => p.includes('mail/smtp_3.py'))).toBe(true);
      expect(prompts().some((p) => p.includes('### billing/invoice_0.py'))).toBe(false);
    } finally {
      store.close();
    }
  });

  it('keeps the previous tree when a build is cancelled or the model answers nothing', async () => {
    const store = SummaryStore.open(join(dataDir, 'keep.sqlite'));
    try {
      await build(store);
      const before = store.all().map((s) => s.text);
      const controller = new AbortController();
      controller.abort();
      await expect(build(store, controller.signal)).rejects.toMatchObject({ code: 'CANCELLED' });
      server.script.respond = () => ({ text: '<think>hmm</think>' });
      appendFileSync(join(root, 'geometry/shape_1.py'), '\n# closed polygons only\n');
      await indexRepository({ root, curatedFile, ...indexerDeps() });
      const db = openDatabase(curatedFile);
      await embedRepository(db, embedder);
      db.close();
      await expect(build(store)).rejects.toThrow(/returned an empty summary/);
      expect(store.all().map((s) => s.text)).toEqual(before);
    } finally {
      store.close();
    }
  });

  it('is refused, naming the fix, when the index has no vectors', async () => {
    const { curatedFile: bare, root: bareRoot } = await makeIndexedRepo({ 'a.py': 'x = 1\n' });
    const kb = KnowledgeBase.open(bare, 'bare');
    const store = SummaryStore.open(join(dataDir, 'bare.sqlite'));
    try {
      await expect(buildSummaries({ kb, store, embedder, complete: (p, o) => llm.complete(p, o) })).rejects.toThrow(/no vectors for test-trigram.*Embed the repository first/);
    } finally {
      kb.close();
      store.close();
      rmSync(bareRoot, { recursive: true, force: true });
    }
  });
});
