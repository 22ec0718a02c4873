import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../platform/db/open';
import { fileIntentOf, fileKindOf } from './fileKinds';
import { parseQuery } from './query';
import { searchRepository } from './search';
import { makeIndexedRepo } from '../../testing/searchRepo';

describe('file classes', () => {
  it('tells vendored, generated, declaration and example files from the project code', () => {
    for (const path of ['src/vendor/lib.py', 'astropy/extern/ply/lex.py', 'cextern/wcslib/C/wcs.c', 'third_party/zlib/inflate.c', 'pip/_vendor/urllib3/connection.py', 'static/app.min.js', 'dist/app.bundle.js', 'doc/_static/jquery-3.5.1.js', 'static/lodash-4.17.21.js']) {
      expect(fileKindOf(path, 'javascript'), path).toBe('vendored');
    }
    expect(fileKindOf('proto/user_pb2.py', 'python')).toBe('generated');
    expect(fileKindOf('src/__generated__/schema.ts', 'typescript')).toBe('generated');
    expect(fileKindOf('types/index.d.ts', 'typescript')).toBe('declarations');
    for (const path of ['examples/basic/app.py', 'playground/src/main.ts', 'docs_src/tutorial.py', 'tests/fixtures/bad.js', 'demo/index.js']) expect(fileKindOf(path, 'python'), path).toBe('examples');
    for (const path of ['src/app.py', 'src/routing/example_rule.py', 'lib/jquery-plugin/index.ts', 'benchmarks/bench.py', 'src/index.ts']) expect(fileKindOf(path, 'python'), path).toBe('code');
    expect(fileKindOf('CHANGES.rst', 'restructuredtext')).toBe('docs');
    // Data and settings files are config wherever they are (a task naming package.json means config).
    expect(fileKindOf('tests/fixtures/app/node_modules/plugin/package.json', 'json')).toBe('config');
    expect(fileKindOf('LICENSE', 'text')).toBe('docs');
  });

  it('reads which of these classes a text asks for', () => {
    expect([...fileIntentOf(parseQuery('update the vendored urllib3')).kinds]).toEqual(['vendored']);
    expect([...fileIntentOf(parseQuery('fix Jinja syntax in example')).kinds]).toEqual(['examples']);
    expect([...fileIntentOf(parseQuery('wrong return type in index.d.ts')).kinds]).toContain('declarations');
    expect([...fileIntentOf(parseQuery('regenerate the protobuf code')).kinds]).toEqual(['generated']);
    expect([...fileIntentOf(parseQuery('the parser drops the last token')).kinds]).toEqual([]);
  });
});

const QUERY = 'selector matching fails for attribute selectors with quotes';

describe('search over files of several classes', () => {
  let db: Db;
  beforeAll(async () => {
    const selector = 'function matchSelector(selector, element) {\n  // attribute selectors with quotes: strip the quotes before matching\n  return element.matches(selector);\n}\n';
    const repo = await makeIndexedRepo({
      'doc/_static/jquery-3.5.1.js': `/*! jQuery v3.5.1 */\n${'function select(selector, context) {\n  // selector matching for attribute selectors, with quotes\n  return Sizzle.matchSelector(selector, context);\n}\n'.repeat(6)}`,
      'types/selector.d.ts': 'export declare function matchSelector(selector: string, element: Element): boolean; // attribute selectors with quotes\n',
      'examples/selectors/demo.js': `// Selector matching demo: attribute selectors with quotes\n${selector}`,
      'src/selector.js': selector,
      // A declaration file that repeats the code's names with more of the words (the svelte miss).
      'types/engine.d.ts': 'export interface SelectorEngine {\n  /** The selector engine cache: the engine keeps its cache of compiled selectors. */\n  cache: Map<string, unknown>;\n  clearCache(): void;\n}\n',
      'src/engine.js': 'export class SelectorEngine {\n  constructor() {\n    this.compiled = new Map();\n  }\n}\n',
      'src/render.js': 'export function render(node) {\n  return node.outerHTML;\n}\n',
    });
    db = openDatabase(repo.curatedFile, { readOnly: true });
  });
  afterAll(() => db?.close());

  it('ranks the project code first and says why the others rank lower', async () => {
    const results = await searchRepository(db, QUERY, { limit: 5 });
    const paths = results.map((r) => r.path);
    expect(paths[0], JSON.stringify(paths)).toBe('src/selector.js');
    const classOf = (path: string) => results.find((r) => r.path === path)?.why.find((w) => w.kind === 'file-class')?.detail;
    expect(classOf('doc/_static/jquery-3.5.1.js')).toEqual({ class: 'vendored' });
    // Declarations are classified but not demoted (see the next test and fileKinds.ts).
    expect(classOf('types/selector.d.ts')).toBeUndefined();
    expect(classOf('examples/selectors/demo.js')).toEqual({ class: 'examples' });
    expect(classOf('src/selector.js')).toBeUndefined();
  });

  it('gives the definition bonus of a name code defines to the code, not to its declaration', async () => {
    const results = await searchRepository(db, 'SelectorEngine loses its cache', { limit: 5 });
    const paths = results.map((r) => r.path);
    expect(paths[0], JSON.stringify(paths)).toBe('src/engine.js');
    expect(results.find((r) => r.path === 'types/engine.d.ts')?.why.some((w) => w.kind === 'definition') ?? false).toBe(false);
    expect(results.find((r) => r.path === 'src/engine.js')!.why).toContainEqual({ kind: 'definition', detail: { symbol: 'SelectorEngine' } });
  });

  it('does not demote a class the text asks for', async () => {
    const results = await searchRepository(db, `${QUERY} in the demo example`, { limit: 5 });
    expect(results.find((r) => r.path === 'examples/selectors/demo.js')?.why.some((w) => w.kind === 'file-class')).toBe(false);
  });
});
