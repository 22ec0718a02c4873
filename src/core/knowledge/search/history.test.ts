import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../platform/db/open';
import { indexRepository } from '../indexer/indexer';
import { KnowledgeBase } from '../kb/knowledgeBase';
import { createTestRepo, type TestRepo } from '../../testing/gitRepo';
import { historyRanking } from './history';
import { parseQuery } from './query';
import { overrideRanking } from './rankingConstants';
import { searchRepository } from './search';
import { indexerDeps } from '../../testing/searchRepo';

// Source whose text never says "event stream" or "compress": only the history can tie the
// stream middleware to the task's words.
const FILES: Record<string, string> = {
  'app/middleware/stream.py': 'class StreamMiddleware:\n    def __call__(self, scope):\n        return self.app(scope)\n',
  'app/routing.py': 'def route(path):\n    """Route a request to its handler by path."""\n    return path\n',
  'app/requests.py': 'class Request:\n    """An incoming request and its event stream."""\n    def body(self):\n        return b""\n',
  'CHANGES.md': '# Changes\n',
};

describe('history ranker (past commits like the task)', () => {
  let repo: TestRepo;
  let db: Db;
  let streamSha: string;

  beforeAll(async () => {
    repo = createTestRepo({ prefix: 'cra-history-' });
    repo.writeFiles(FILES);
    repo.commit('initial');
    repo.write('app/middleware/stream.py', `${FILES['app/middleware/stream.py']}# passthrough\n`);
    repo.write('CHANGES.md', '# Changes\n\n- Event streams pass through uncompressed.\n');
    streamSha = repo.commit('Do not compress server sent event streams\n\nThe body of an event stream must reach the client at once.');
    // A mass change whose message shares the words: 60 files, over HISTORY.maxFiles.
    for (let i = 0; i < 60; i++) repo.write(`app/generated/g${i}.py`, `VALUE_${i} = ${i}\n`);
    repo.commit('Compress generated event tables for server builds');
    repo.write('app/routing.py', `${FILES['app/routing.py']}# routes\n`);
    repo.commit('Route by path prefix');
    const curatedFile = join(dirname(repo.root), 'data', 'curated.sqlite');
    await indexRepository({ root: repo.root, curatedFile, ...indexerDeps() });
    db = openDatabase(curatedFile, { readOnly: true });
  });

  afterAll(() => {
    db?.close();
    repo?.cleanup();
  });

  it('ranks a file that past commits with the task’s words changed, and says which commit', async () => {
    const results = await searchRepository(db, 'compress server sent events', { mode: 'keyword', limit: 20 });
    const stream = results.find((r) => r.path === 'app/middleware/stream.py');
    expect(stream).toBeDefined();
    const reason = stream!.why.find((w) => w.kind === 'past-commits');
    expect(reason).toEqual({ kind: 'past-commits', detail: { score: 1, commits: 1, sha: streamSha, message: 'Do not compress server sent event streams' } });
    // The changelog changed in the same commit, but past commits say nothing of a file every commit touches.
    const changes = results.find((r) => r.path === 'CHANGES.md');
    expect(changes?.why.map((w) => w.kind)).toContain('text-match');
    expect(changes!.why.some((w) => w.kind === 'past-commits')).toBe(false);
    // The mass commit shared the words but changed more than HISTORY.maxFiles paths: none of its files come in by it.
    expect(results.some((r) => r.path.startsWith('app/generated/'))).toBe(false);
  });

  it('is the history that brings the file in: with the ranker off it is not found', async () => {
    const restore = overrideRanking({ HISTORY: { share: 0 } });
    try {
      const results = await searchRepository(db, 'compress server sent events', { mode: 'keyword', limit: 20 });
      expect(results.map((r) => r.path)).not.toContain('app/middleware/stream.py');
    } finally {
      restore();
    }
  });

  it('divides a commit’s weight by the paths it changed, and leaves out commits over the limit', () => {
    const restore = overrideRanking({ HISTORY: { maxFiles: 100 } });
    try {
      const kb = KnowledgeBase.of(db);
      const ranking = historyRanking(kb, parseQuery('compress server sent events'));
      const byPath = new Map([...ranking].map(([id, hit]) => [kb.searchIndex.pathOf(id), hit]));
      // With the limit raised the mass commit counts, each of its 60 files at 1/60 of its share.
      expect(byPath.get('app/generated/g0.py')?.score).toBeGreaterThan(0);
      expect(byPath.get('app/generated/g0.py')!.score).toBeLessThan(byPath.get('app/middleware/stream.py')!.score / 4);
    } finally {
      restore();
    }
  });

  it('finds nothing for words no commit message holds', () => {
    expect(historyRanking(KnowledgeBase.of(db), parseQuery('zebra quokka')).size).toBe(0);
  });
});
