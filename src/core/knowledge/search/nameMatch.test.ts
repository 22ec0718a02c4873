import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../platform/db/open';
import { KnowledgeBase } from '../kb/knowledgeBase';
import { fileIntentOf, kindPrior } from './fileKinds';
import { filesNamed, joinedStem, namedFiles, stemWords } from './nameMatch';
import { parseQuery } from './query';
import { overrideRanking } from './rankingConstants';
import { searchRepository } from './search';
import { makeIndexedRepo } from '../../testing/searchRepo';

// The rule file uses none of the task's words in its code: only its name says what it is.
const RULE = `def check(node):
    if node.kind == "def" and not node.uses_self:
        return "report"
    return None
`;
// Files that use the task's words (class, methods, computed, ignore) a lot.
const COMPUTED = `class ComputedKeys:
    """Computed methods of a class: ignore computed keys, computed methods, class methods."""

    def computed_methods(self, klass):
        return [m for m in klass.methods if m.computed]

    def ignore(self, methods):
        return [m for m in methods if not m.ignored]
`;
const CLASSES = `def class_methods(klass):
    """All methods of a class, computed ones too; ignore configs apply to class methods."""
    return klass.methods
`;
const VERSIONS = `export class VersionUtils {
  static isGreaterOrEqual(a: string, b: string): boolean {
    return a >= b;
  }
}
`;
const DRIVER = `export class Driver {
  /** The server version decides which version features the driver uses: version checks. */
  version(server: string): string {
    return server.split(' ')[0] ?? server;
  }
}
`;
const CI = `name: ci
jobs:
  lint:
    steps:
      - run: npx eslint . --rule crash
`;
const LINTER = `export function lint(source: string): string[] {
  // eslint reports a crash on an empty source
  return source.length === 0 ? ['crash'] : [];
}
`;

let db: Db;

beforeAll(async () => {
  const { curatedFile } = await makeIndexedRepo({
    'lib/rules/class_methods_use_this.py': RULE,
    'lib/rules/computed_keys.py': COMPUTED,
    'lib/classes.py': CLASSES,
    'src/util/VersionUtils.ts': VERSIONS,
    'src/driver/Driver.ts': DRIVER,
    'lib/languages/js/index.js': 'module.exports = { name: "js" };\n',
    'lib/index.js': 'module.exports = require("./languages/js/index.js");\n',
    '.github/workflows/ci.yml': CI,
    'src/linter.ts': LINTER,
  });
  db = openDatabase(curatedFile, { readOnly: true });
}, 60_000);

afterAll(() => db?.close());

const paths = async (query: string) => (await searchRepository(db, query, { limit: 10 })).map((r) => r.path);

describe('files the query names', () => {
  it('splits file names into words whatever their spelling', () => {
    expect(stemWords('lib/rules/class-methods-use-this.js')).toEqual(['class', 'methods', 'use', 'this']);
    expect(stemWords('src/util/VersionUtils.ts')).toEqual(['version', 'utils']);
    expect(stemWords('lib/types/rules.d.ts')).toEqual(['rules']);
    const named = namedFiles(parseQuery('fix: quadratic regex in `prefer-template` (see `lib/shared/serialization.js`)'));
    expect(named.phrases.get('prefertemplate')).toBe('prefer template');
    expect(named.paths).toContain('lib/shared/serialization.js');
  });

  it("keys a file name by its stem words joined without splitting it (the name index of a repository's first search)", () => {
    const paths = ['lib/rules/class-methods-use-this.js', 'src/util/VersionUtils.ts', 'lib/types/rules.d.ts', 'a/getHTTPResponse2.py', 'x/__init__.py', 'x/_private_.py', 'Makefile', '.eslintrc.json', 'dir.v2/file.tar.gz', 'src/x.d.mts', 'ÜberModule.py', 'a/b/c', 'name.with.dots.longextension', '--.js', ''];
    for (const path of paths) expect(joinedStem(path), path).toBe(stemWords(path).join(''));
  });

  it('finds a file by a kebab-case name, by words and by a spelled-out path', () => {
    const byId = (query: string) => [...filesNamed(KnowledgeBase.of(db).searchIndex, parseQuery(query)).keys()].map((id) => db.prepare('select path from files where id = ?').pluck().get(id));
    expect(byId('ignore computed methods in class-methods-use-this')).toEqual(['lib/rules/class_methods_use_this.py']);
    expect(byId('compare versions with the version utils helper')).toEqual(['src/util/VersionUtils.ts']);
    expect(byId('add missing backticks to `languages/js/index.js`')).toEqual(['lib/languages/js/index.js']);
    // One word is not a name: `index` alone names no file (index.js needs its extension or path).
    expect(byId('rebuild the index')).toEqual([]);
  });

  it('ranks the named file first, where the words alone rank it below files that use them', async () => {
    const query = 'fix: apply ignore configs to computed methods in class-methods-use-this';
    expect((await paths(query))[0]).toBe('lib/rules/class_methods_use_this.py');
    const restore = overrideRanking({ NAME_MATCH: { share: 0 } });
    try {
      expect((await paths(query))[0]).not.toBe('lib/rules/class_methods_use_this.py');
    } finally {
      restore();
    }
    const result = (await searchRepository(db, query, { limit: 3 }))[0]!;
    expect(result.why).toContainEqual({ kind: 'named-in-task', detail: { text: 'class methods use this' } });
  });

  it('ranks a camel-case file named in words first', async () => {
    const query = 'compare server version with version utils';
    expect((await paths(query))[0]).toBe('src/util/VersionUtils.ts');
    const restore = overrideRanking({ NAME_MATCH: { share: 0 } });
    try {
      expect((await paths(query))[0]).toBe('src/driver/Driver.ts');
    } finally {
      restore();
    }
  });
});

describe('tool names in the query', () => {
  it('a tool name asks for its own config files only, not for every config file', () => {
    const intent = fileIntentOf(parseQuery('fix eslint crash'));
    expect([...intent.kinds]).toEqual([]);
    expect([...intent.tools]).toEqual(['eslint']);
    const id = (path: string) => db.prepare('select id from files where path = ?').pluck().get(path) as number;
    expect(kindPrior(KnowledgeBase.of(db).searchIndex, parseQuery('fix eslint crash'))(id('.github/workflows/ci.yml'))).toBeLessThan(1);
    const restore = overrideRanking({ KIND_PRIOR: { toolWordAsksConfig: 1 } });
    try {
      expect(kindPrior(KnowledgeBase.of(db).searchIndex, parseQuery('fix eslint crash'))(id('.github/workflows/ci.yml'))).toBe(1);
    } finally {
      restore();
    }
  });
});

describe('overrideRanking', () => {
  it('names an unknown constant and restores what it replaced', () => {
    expect(() => overrideRanking({ GRAPH: { nope: 1 } as never })).toThrow(/GRAPH\.nope/);
    expect(() => overrideRanking({ NOPE: {} } as never)).toThrow(/Unknown ranking group "NOPE"/);
    const restore = overrideRanking({ NAME_MATCH: { share: 0 } });
    restore();
    return expect(paths('version utils')).resolves.toContain('src/util/VersionUtils.ts');
  });
});
