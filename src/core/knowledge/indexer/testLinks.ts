import type { Db } from '../../platform/db/open';

/** The code file name a test file is named after: test_foo.py → foo, foo.test.ts → foo, FooTest.java → Foo. */
export function testSubject(path: string): string | null {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const patterns: Array<[RegExp, string]> = [
    [/^test_(.+)\.py$/, '$1'],
    [/^(.+)_test\.(py|go)$/, '$1'],
    [/^(.+)\.(test|spec)\.([cm]?[jt]sx?)$/, '$1'],
    [/^(.+?)Tests?\.(java|cs)$/, '$1'],
  ];
  for (const [re, to] of patterns) if (re.test(name)) return name.replace(re, to);
  return null;
}

function stemOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1).replace(/\.[^.]+$/, '');
}

function dirSegments(path: string): string[] {
  return path
    .split('/')
    .slice(0, -1)
    .filter((s) => !/^(tests?|__tests__|spec)$/i.test(s));
}

/** How much two folder paths agree, counting from the end (tests/ folders ignored). */
function closeness(a: string, b: string): number {
  const x = dirSegments(a);
  const y = dirSegments(b);
  let n = 0;
  while (n < x.length && n < y.length && x[x.length - 1 - n] === y[y.length - 1 - n]) n++;
  return n * 10 - Math.abs(x.length - y.length);
}

/**
 * Rebuild `test_links`: a test file links to the code file it is named after (the closest one by
 * folder when several share the name) and to the non-test files it imports.
 */
export function rebuildTestLinks(db: Db): number {
  db.exec('delete from test_links');
  const files = db.prepare('select id, path, is_test as isTest from files where skip_reason is null').all() as Array<{ id: number; path: string; isTest: number }>;
  const codeByStem = new Map<string, Array<{ id: number; path: string }>>();
  for (const f of files) {
    if (f.isTest) continue;
    const list = codeByStem.get(stemOf(f.path)) ?? [];
    list.push(f);
    codeByStem.set(stemOf(f.path), list);
  }
  const insert = db.prepare('insert or ignore into test_links (test_file_id, code_file_id, kind) values (?, ?, ?)');
  let links = 0;
  for (const test of files.filter((f) => f.isTest)) {
    const subject = testSubject(test.path);
    const candidates = subject ? (codeByStem.get(subject) ?? []) : [];
    if (candidates.length > 0) {
      const scored = candidates.map((c) => ({ c, score: closeness(test.path, c.path) }));
      const best = Math.max(...scored.map((s) => s.score));
      for (const { c } of scored.filter((s) => s.score === best).slice(0, 3)) links += insert.run(test.id, c.id, 'name').changes;
    }
  }
  links += db
    .prepare(
      `insert or ignore into test_links (test_file_id, code_file_id, kind)
       select d.from_file_id, d.to_file_id, 'import' from file_dependencies d
       join files t on t.id = d.from_file_id and t.is_test = 1
       join files c on c.id = d.to_file_id and c.is_test = 0`,
    )
    .run().changes;
  return links;
}
