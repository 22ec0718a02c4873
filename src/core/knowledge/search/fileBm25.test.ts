import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../platform/db/open';
import { runGitSync } from '../../platform/git';
import { indexRepository } from '../indexer/indexer';
import { fileBm25, stemmedWords } from './fileBm25';
import { parseQuery, withoutStopWords } from './query';
import { indexerDeps, makeIndexedRepo } from '../../testing/searchRepo';

// A source file that saves entities among much other code, tests that each say "entity" and "save"
// once in a few lines, and a docs page that repeats the words.
const EXECUTOR = Array.from({ length: 12 }, (_, i) => `def step_${i}(subject, entity):\n    """Save the entity in step ${i}."""\n    return subject.save(entity, order=${i})\n`).join('\n\n');
const testFile = (i: number) => `def test_save_${i}(entity):\n    assert entity.save()\n`;
const DOC = '# Saving\n\nSave an entity: entity save, entity save, entity save.\n';

let db: Db;
let root: string;
let curatedFile: string;
const idOf = (path: string) => db.prepare('select id from files where path = ?').pluck().get(path) as number;

beforeAll(async () => {
  const files: Record<string, string> = { 'orm/executor.py': EXECUTOR, 'orm/util.py': 'def noop():\n    return None\n', 'docs/saving.md': DOC };
  for (let i = 0; i < 8; i++) files[`tests/test_save_${i}.py`] = testFile(i);
  ({ root, curatedFile } = await makeIndexedRepo(files));
  db = openDatabase(curatedFile, { readOnly: true });
});

afterAll(() => db?.close());

describe('whole-file BM25 corpus', () => {
  it('ranks only code files, leaving tests and docs to the chunk search and the priors', () => {
    const scores = fileBm25(db, parseQuery('save the entity'));
    expect(scores.get(idOf('orm/executor.py'))).toBeGreaterThan(0);
    expect(scores.has(idOf('tests/test_save_0.py'))).toBe(false);
    expect(scores.has(idOf('docs/saving.md'))).toBe(false);
  });

  it('ranks test files too when the query asks about tests', () => {
    const scores = fileBm25(db, parseQuery('test that save keeps the entity'));
    expect(scores.get(idOf('tests/test_save_0.py'))).toBeGreaterThan(0);
    expect(scores.get(idOf('orm/executor.py'))).toBeGreaterThan(0);
  });

  it('ranks a documentation page the query names, not every page when it only says "docs"', () => {
    expect(fileBm25(db, parseQuery('docs: save the entity')).has(idOf('docs/saving.md'))).toBe(false);
    expect(fileBm25(db, parseQuery('save the entity in saving.md')).get(idOf('docs/saving.md'))).toBeGreaterThan(0);
  });

  it('sees files indexed after its counts were cached on the same connection', async () => {
    const before = fileBm25(db, parseQuery('save the entity'));
    writeFileSync(join(root, 'orm/saver.py'), 'def save_entity(entity):\n    return entity.save()\n');
    runGitSync(['add', '-A'], { cwd: root });
    runGitSync(['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'saver'], { cwd: root });
    await indexRepository({ root, curatedFile, ...indexerDeps() });
    const after = fileBm25(db, parseQuery('save the entity'));
    expect(before.has(idOf('orm/saver.py'))).toBe(false);
    expect(after.get(idOf('orm/saver.py'))).toBeGreaterThan(0);
  });
});

describe('query words for whole-file BM25', () => {
  it('keeps the order of the text, so the first words are the ones kept', () => {
    expect(stemmedWords(db, 'zeta alpha middle')).toEqual(['zeta', 'alpha', 'middl']);
  });

  it('leaves stop words out', () => {
    expect(withoutStopWords('Fix the cache of the Session when it expires')).toBe('Fix cache Session expires');
  });
});
