import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../platform/db/open';
import { indexRepository, type IndexOptions } from './indexer';
import { cleanupAfterEach, sharedExtractor } from '../../testing/indexerHarness';
import { createTestRepo, type TestRepo } from '../../testing/gitRepo';
import { writeSample } from '../../testing/sampleRepo';

/**
 * The stored index, byte for byte, guards the indexer's performance work (issue #25): a full build
 * of a fixture repository is dumped table by table (every row, every column, ids included; file
 * mtimes and run timestamps left out) and compared with the dump committed beside this test, and
 * the build in parse workers (with and without the search index thread) must store exactly what the
 * in-thread build stores. A change that
 * alters what is stored fails here; when the change is meant, bump INDEX_VERSION and update the
 * dump (`npx vitest run src/core/knowledge/indexer/indexDump.test.ts -u`).
 */

const extractor = sharedExtractor();
const cleanups = cleanupAfterEach();
const FIXTURES = join(__dirname, 'extract', 'fixtures');

/** The sample repository, every language fixture, and Python shaped like the standard library's. */
function writeFixture(repo: TestRepo): void {
  writeSample(repo);
  for (const name of readdirSync(FIXTURES)) repo.write(`langs/${name.replace(/\.txt$/, '')}`, readFileSync(join(FIXTURES, name)));
  repo.write('lib/codec/__init__.py', '"""Codecs."""\nfrom .decoder import JSONDecoder, scanstring as scan\nfrom . import encoder\n__all__ = ["JSONDecoder"]\n');
  repo.write(
    'lib/codec/decoder.py',
    [
      '"""Decoder."""',
      'import re',
      'from codec.scanner import make_scanner',
      'NUMBER_RE = re.compile(r"(-?(?:0|[1-9]\\d*))(\\.\\d+)?")',
      'FLAGS, _private = 1, 2',
      '',
      'def scanstring(s, end, strict=True):',
      '    """Scan the string s for a JSON string."""',
      '    # NOTE: the fast path is in C because parsing dominates',
      '    chunks = []',
      '    return "".join(chunks), end',
      '',
      '',
      'class JSONDecoder(object):',
      '    """Simple JSON decoder."""',
      '',
      '    def __init__(self, *, object_hook=None, parse_float=None):',
      '        self.object_hook = object_hook',
      '        self.parse_float = parse_float or float',
      '        self.scan_once = make_scanner(self)',
      '',
      '    @property',
      '    def strict(self):',
      '        return True',
      '',
      '    def decode(self, s, _w=NUMBER_RE.match):',
      '        obj, end = self.raw_decode(s, idx=_w(s, 0).end())',
      '        return obj',
      '',
      '    def raw_decode(self, s, idx=0):',
      '        try:',
      '            obj, end = self.scan_once(s, idx)',
      '        except StopIteration as err:',
      '            raise ValueError(err.value) from None',
      '        return obj, end',
      '',
      '',
      'class StrictDecoder(JSONDecoder):',
      '    def decode(self, s):',
      '        return super().decode(s) if self.strict else scanstring(s, 0)',
      '',
    ].join('\n'),
  );
  repo.write('lib/codec/encoder.py', 'import codec.decoder as dec\n\n\ndef encode(o):\n    # XXX: why not reuse the decoder? because of cycles\n    return dec.JSONDecoder().decode(repr(o))\n');
  repo.write('lib/codec/scanner.py', 'def make_scanner(context):\n    parse_object = context.parse_object\n    return lambda s, i: (parse_object(s), i)\n\n\ndef broken(:\n    pass\n');
  // Long symbols and long prose: chunk windows, a long class cut at its methods.
  const methods = Array.from({ length: 30 }, (_, i) => `    def step_${i}(self, value):\n        """Step ${i}."""\n        return self.step_${(i + 1) % 30}(value) + ${i}\n`).join('\n');
  const body = Array.from({ length: 100 }, (_, i) => `    total += weight_${i % 7} * ${i}`).join('\n');
  repo.write('lib/codec/pipeline.py', `class Pipeline:\n    """Thirty steps."""\n\n${methods}\n\ndef accumulate(weight_0=1):\n    total = 0\n${body}\n    return total\n`);
  repo.write('docs/guide.md', Array.from({ length: 130 }, (_, i) => `Line ${i} of the guide mentions parseHTTPResponse and user_id ${i}.`).join('\n'));
  repo.commit('codec', 4);
  repo.write('lib/codec/encoder.py', 'import codec.decoder as dec\n\n\ndef encode(o):\n    return dec.JSONDecoder().decode(repr(o))\n');
  repo.write('lib/codec/decoder.py', `${readFileSync(join(repo.root, 'lib/codec/decoder.py'), 'utf8')}\n# tuned\n`);
  repo.commit('codec again', 5);
}

/** Every row of every table the indexer writes (FTS shadow tables and run timestamps excepted), in id order. */
function dump(db: Db): string {
  const tables = db.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '%fts%' order by name").pluck().all() as string[];
  const out: string[] = [];
  for (const table of tables) {
    const columns = (db.pragma(`table_info("${table}")`) as Array<{ name: string }>).map((c) => c.name).filter((c) => c !== 'mtime_ms' && c !== 'indexed_at');
    const rows = db.prepare(`select ${columns.map((c) => `"${c}"`).join(', ')} from "${table}" order by ${columns.map((c) => `"${c}"`).join(', ')}`).raw().all() as unknown[][];
    const kept = table === 'index_meta' ? rows.filter((r) => r[0] !== 'indexed_at') : rows;
    out.push(`## ${table} (${columns.join(', ')})`, ...kept.map((r) => JSON.stringify(r)));
  }
  // What search sees: the FTS index answers the same queries with the same rows.
  for (const term of ['decoder', 'scan*', 'greet', 'frobnicator']) {
    out.push(`## chunks_fts match ${term}`, JSON.stringify(db.prepare('select rowid from chunks_fts where chunks_fts match ? order by rank, rowid').pluck().all(term)));
  }
  out.push('## paths_fts match codec', JSON.stringify(db.prepare("select rowid from paths_fts where paths_fts match 'codec' order by rowid").pluck().all()));
  return `${out.join('\n')}\n`;
}

async function buildAndDump(repo: TestRepo, extra: Partial<IndexOptions>): Promise<string> {
  const data = mkdtempSync(join(tmpdir(), 'cra-dump-'));
  cleanups.push(() => rmSync(data, { recursive: true, force: true }));
  const curatedFile = join(data, 'curated.sqlite');
  await indexRepository({ root: repo.root, curatedFile, extractor, ...extra });
  const db = openDatabase(curatedFile, { readOnly: true });
  try {
    return dump(db);
  } finally {
    db.close();
  }
}

describe('the stored index of a fixture repository', () => {
  it('is what the committed dump holds, built in this thread or in parse workers', async () => {
    const repo = createTestRepo();
    cleanups.push(() => repo.cleanup());
    writeFixture(repo);
    const inThread = await buildAndDump(repo, { parallel: { workers: 0 } });
    await expect(inThread).toMatchFileSnapshot('fixtures/indexDump.txt');
    const pooled = await buildAndDump(repo, { parallel: { workers: 2, minFiles: 1, chunkIndexThread: false } });
    expect(pooled).toBe(inThread);
    // The chunk search index built on its own thread (chunkIndexThread.ts) answers the same queries.
    const threaded = await buildAndDump(repo, { parallel: { workers: 2, minFiles: 1, chunkIndexThread: true } });
    expect(threaded).toBe(inThread);
  }, 60_000);
});
