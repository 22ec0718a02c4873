import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../platform/db/open';
import { DEFAULT_EMBEDDER_ID } from '../../knowledge/search/embedder';
import { VectorStore } from '../../knowledge/search/vectorStore';
import { evaluateRepository } from './evaluate';
import { buildFixtureRepo } from '../../testing/fixtureRepo';
import { formatReport } from '../../../shared/evalFormat/format';
import { productRetrieval } from './product';
import type { ProductRetrieval } from './run';

let root: string;
let repo: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'cra-evalmode-'));
  repo = buildFixtureRepo(join(root, 'repo'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Vectors of the default embedder and chunks in an evaluation's index, read just before each search. */
function countingVectors(inner: ProductRetrieval, seen: Array<{ vectors: number; chunks: number }>): ProductRetrieval {
  const count = (stateDir: string) => {
    const db = openDatabase(join(stateDir, 'curated.sqlite'), { readOnly: true, withVectors: true });
    try {
      const chunks = db.prepare('select count(*) from chunks').pluck().get() as number;
      seen.push({ vectors: VectorStore.existing(db, DEFAULT_EMBEDDER_ID)?.count() ?? 0, chunks });
    } finally {
      db.close();
    }
  };
  // The run searches through searchUnits when the retrieval has it (function-level figures).
  return {
    ...inner,
    async search(args) {
      count(args.stateDir);
      return inner.search(args);
    },
    async searchUnits(args) {
      count(args.stateDir);
      return inner.searchUnits!(args);
    },
  };
}

describe('evaluating a search mode', () => {
  it('names the method after the mode, embeds every chunk before each search, and scores in [0, 1]', async () => {
    const seen: Array<{ vectors: number; chunks: number }> = [];
    const messages: string[] = [];
    const { report } = await evaluateRepository({
      dataDir: join(root, 'data-hybrid'),
      repoPath: repo,
      commits: 3,
      retrieval: countingVectors(productRetrieval({ mode: 'hybrid' }), seen),
      onProgress: (p) => messages.push(p.message),
    });
    // The first task embeds the whole index and says so (its last report is the finished count).
    expect(messages).toContainEqual(expect.stringMatching(/^embedding chunks: (\d+)\/\1$/));
    expect(report.methods).toEqual(['search-hybrid', 'search-hybrid-source', 'search-functions', 'bm25', 'bm25-source', 'bm25-standard']);
    expect(report.tasks).toHaveLength(3);
    // Every task's index was fully embedded before its search ran.
    expect(seen).toHaveLength(3);
    for (const s of seen) {
      expect(s.chunks).toBeGreaterThan(0);
      expect(s.vectors).toBe(s.chunks);
    }
    for (const task of report.tasks) {
      expect(task.error).toBeUndefined();
      expect(task.embedMs).toBeGreaterThanOrEqual(0);
      expect(task.results.search).toBeUndefined();
      const result = task.results['search-hybrid']!;
      expect(result.ranked.length).toBeGreaterThan(0);
      for (const value of [...Object.values(result.recallAt), result.mrr]) {
        expect(value).toBeGreaterThanOrEqual(0);
        expect(value).toBeLessThanOrEqual(1);
      }
    }
    for (const value of Object.values(report.summary['search-hybrid']!.recallAt)) {
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThanOrEqual(1);
    }
    expect(report.timing.embedMsMean).toBeGreaterThanOrEqual(0);
    expect(formatReport(report)).toMatch(/^search-hybrid\s+\d/m);
    expect(formatReport(report)).toMatch(/Embedding: \d+ ms\/task mean/);
  }, 120_000);

  it('keeps keyword runs free of vectors and named `search`', async () => {
    const seen: Array<{ vectors: number; chunks: number }> = [];
    const { report } = await evaluateRepository({
      dataDir: join(root, 'data-keyword'),
      repoPath: repo,
      commits: 2,
      retrieval: countingVectors(productRetrieval(), seen),
    });
    expect(report.methods).toEqual(['search', 'search-source', 'search-functions', 'bm25', 'bm25-source', 'bm25-standard']);
    expect(seen.map((s) => s.vectors)).toEqual([0, 0]);
    expect(report.timing.embedMsMean).toBeUndefined();
    expect(report.tasks.every((t) => t.embedMs === undefined)).toBe(true);
  }, 60_000);

});
