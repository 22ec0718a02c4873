import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../platform/db/open';
import { indexRepository } from '../indexer/indexer';
import { embedRepository } from './embedRun';
import { cosine, createDefaultEmbedder, createEmbedder, type Embedder } from './embedder';
import { searchWithMode } from './search';
import { indexerDeps, makeIndexedRepo } from '../../testing/searchRepo';
import { VectorStore } from './vectorStore';

/**
 * A deterministic embedder for testing the run logic (which chunks get embedded), not the model:
 * a bag of character trigrams hashed into 16 dimensions, counting the texts it was given.
 */
function trigramEmbedder(): Embedder & { calls: string[] } {
  const calls: string[] = [];
  const embedder = createEmbedder({
    id: 'test-trigram',
    dimensions: 16,
    embedBatch: async (texts) => {
      calls.push(...texts);
      return texts.map((t) => {
        const v = new Array<number>(16).fill(0);
        for (let i = 0; i + 3 <= t.length; i++) v[(t.charCodeAt(i) * 31 + t.charCodeAt(i + 1) * 7 + t.charCodeAt(i + 2)) % 16]! += 1;
        v[0]! += 1e-3;
        return v;
      });
    },
  });
  return Object.assign(embedder, { calls });
}

describe('embedRepository', () => {
  it('embeds only new or changed chunks and drops vectors of deleted ones', async () => {
    const { root, curatedFile } = await makeIndexedRepo({
      'a.py': 'def alpha():\n    return 1\n\n\ndef beta():\n    return 2\n',
      'b.py': 'def gamma():\n    return 3\n',
    });
    const db = openDatabase(curatedFile);
    const embedder = trigramEmbedder();
    const first = await embedRepository(db, embedder);
    const chunkCount = db.prepare('select count(*) from chunks').pluck().get() as number;
    expect(first.embedded).toBe(chunkCount);
    expect(embedder.calls).toHaveLength(chunkCount);

    embedder.calls.length = 0;
    const again = await embedRepository(db, embedder);
    expect(again.embedded).toBe(0);
    expect(embedder.calls).toHaveLength(0);

    appendFileSync(join(root, 'b.py'), '\n\ndef delta():\n    return 4\n');
    db.close();
    await indexRepository({ root, curatedFile, ...indexerDeps() });
    const db2 = openDatabase(curatedFile);
    const changed = await embedRepository(db2, embedder);
    const bChunks = db2.prepare("select count(*) from chunks where path = 'b.py'").pluck().get() as number;
    expect(changed.embedded).toBeLessThan(bChunks);
    expect(changed.embedded).toBeGreaterThan(0);
    expect(embedder.calls.some((t) => t.includes('delta'))).toBe(true);
    expect(embedder.calls.some((t) => t.includes('alpha'))).toBe(false);
    // b.py was re-parsed (new chunk rows), but gamma's text did not change: its vector is reused.
    expect(embedder.calls.some((t) => t.includes('gamma'))).toBe(false);
    expect(changed.reused).toBeGreaterThan(0);
    expect(changed.embedded + changed.reused).toBe(bChunks);
    const store = VectorStore.existing(db2, 'test-trigram')!;
    const live = db2.prepare('select count(*) from chunks').pluck().get() as number;
    expect(store.count()).toBe(live);
    const vecRows = db2.prepare(`select count(*) from ${store.table}`).pluck().get() as number;
    expect(vecRows).toBe(live);
    db2.close();

    // A full re-index gives every chunk a new row: nothing is embedded again, every vector is reused.
    const gammaVector = (d: typeof db2, table: string) =>
      d.prepare(`select v.embedding from chunks c join ${table} v on v.chunk_id = c.id where c.text like '%def gamma%'`).pluck().get() as Buffer;
    const reopened = openDatabase(curatedFile, { withVectors: true });
    const gammaBefore = gammaVector(reopened, store.table);
    reopened.close();
    expect(gammaBefore.length).toBe(16 * 4);
    embedder.calls.length = 0;
    await indexRepository({ root, curatedFile, ...indexerDeps(), full: true });
    const db3 = openDatabase(curatedFile);
    const rebuilt = await embedRepository(db3, embedder);
    expect(rebuilt.embedded).toBe(0);
    expect(embedder.calls).toHaveLength(0);
    expect(rebuilt.reused).toBe(live);
    const store3 = VectorStore.existing(db3, 'test-trigram')!;
    expect(store3.count()).toBe(live);
    expect(db3.prepare(`select count(*) from ${store3.table}`).pluck().get()).toBe(live);
    expect(db3.prepare('select count(*) from search_retired').pluck().get()).toBe(0);
    // The reused vector is the one the model made for the same text.
    expect(gammaVector(db3, store3.table)).toEqual(gammaBefore);
    db3.close();
  });

  it('stops with CANCELLED when its signal fires, keeping finished batches', async () => {
    const { curatedFile } = await makeIndexedRepo({ 'a.py': Array.from({ length: 30 }, (_, i) => `def f${i}():\n    return ${i}\n\n`).join('\n') });
    const db = openDatabase(curatedFile);
    const controller = new AbortController();
    const embedder = trigramEmbedder();
    const run = embedRepository(db, embedder, {
      signal: controller.signal,
      batchSize: 4,
      progress: (p) => {
        if (p.done >= 4) controller.abort();
      },
    });
    await expect(run).rejects.toMatchObject({ code: 'CANCELLED' });
    const kept = VectorStore.existing(db, 'test-trigram')!.count();
    expect(kept).toBeGreaterThanOrEqual(4);
    expect(kept).toBeLessThan(db.prepare('select count(*) from chunks').pluck().get() as number);
    db.close();
  });
});

// The real embedded model (Universal Sentence Encoder lite from node_modules): loads in ~0.5 s.
describe('default embedder (real model)', () => {
  const embedder = createDefaultEmbedder();

  it('produces 512-d unit vectors, and similar sentences score higher', async () => {
    const [cat, kitten, revenue] = await embedder.embed(['The cat sat on the mat.', 'A kitten is resting on a rug.', 'Quarterly revenue grew by ten percent.']);
    expect(cat).toHaveLength(512);
    expect(Math.sqrt(cosine(cat!, cat!))).toBeCloseTo(1, 5);
    expect(cosine(cat!, kitten!)).toBeGreaterThan(cosine(cat!, revenue!) + 0.3);
  });

  it('drives semantic and hybrid search once a repository is embedded', async () => {
    const { curatedFile } = await makeIndexedRepo({
      'mail/send.py': 'def send_email(address, body):\n    """Deliver a message to a mailbox over SMTP."""\n    return smtp.deliver(address, body)\n',
      'geo/area.py': 'def polygon_area(points):\n    """Compute the surface of a shape from its corners."""\n    return shoelace(points)\n',
    });
    const db = openDatabase(curatedFile);
    const summary = await embedRepository(db, embedder);
    expect(summary.embedded).toBeGreaterThan(0);
    const semantic = await searchWithMode(db, 'deliver a message to a mailbox', { mode: 'semantic', embedder });
    expect(semantic.mode).toBe('semantic');
    expect(semantic.results[0]!.path).toBe('mail/send.py');
    expect(semantic.results[0]!.why.map((r) => r.kind)).toContain('semantic-match');
    const hybrid = await searchWithMode(db, 'polygon area', { mode: 'hybrid', embedder });
    expect(hybrid.mode).toBe('hybrid');
    expect(hybrid.results[0]!.path).toBe('geo/area.py');
    // Vectors do not change the default: auto stays keyword (cra eval measured hybrid as worse).
    const auto = await searchWithMode(db, 'polygon area', { embedder });
    expect(auto.mode).toBe('keyword');
    expect(auto.results.every((r) => r.why.every((w) => w.kind !== 'semantic-match'))).toBe(true);
    db.close();
  });
});
