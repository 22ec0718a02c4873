import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExtractor, type Extractor } from './extractor';
import type { FileExtraction } from './types';

let extractor: Extractor;
let sample: FileExtraction;

beforeAll(async () => {
  extractor = await createExtractor({ languages: ['python'] });
  sample = extractor.extract('python', readFileSync(join(__dirname, 'fixtures', 'sample.py'), 'utf8'));
});
afterAll(() => extractor.dispose());

const sym = (qualifiedName: string) => {
  const found = sample.symbols.find((s) => s.qualifiedName === qualifiedName);
  if (!found) throw new Error(`no symbol ${qualifiedName} in ${sample.symbols.map((s) => s.qualifiedName).join(', ')}`);
  return found;
};

describe('python extraction', () => {
  it('reads the module docstring', () => {
    expect(sample.moduleDoc).toBe('Sample module for the extractor tests.\n\nIt has two paragraphs.');
    expect(sample.hasSyntaxErrors).toBe(false);
  });

  it('finds classes, methods, nested functions and module variables with kinds and lines', () => {
    expect(sample.symbols.map((s) => [s.qualifiedName, s.kind])).toEqual([
      ['MAX_SIZE', 'constant'],
      ['default_name', 'variable'],
      ['_hidden', 'variable'],
      ['Base', 'class'],
      ['Store', 'class'],
      ['Store.get', 'method'],
      ['Store._lookup', 'method'],
      ['Store._lookup.inner', 'function'],
      ['main', 'function'],
    ]);
    expect(sym('Store')).toMatchObject({ startLine: 19, endLine: 34, parent: null, docstring: 'A key-value store.', isExported: true });
    expect(sym('Store.get')).toMatchObject({
      startLine: 23,
      endLine: 28,
      parent: sample.symbols.indexOf(sym('Store')),
      signature: 'def get(self, key, default=None) -> int',
      docstring: 'Return the value.',
    });
    expect(sym('Store._lookup').isExported).toBe(false);
    expect(sym('Store._lookup.inner').parent).toBe(sample.symbols.indexOf(sym('Store._lookup')));
    expect(sym('main').signature).toBe('async def main()');
    expect(sym('_hidden').isExported).toBe(false);
    expect(sym('MAX_SIZE').signature).toBe('MAX_SIZE = 10');
  });

  it('records calls, attribute calls, inheritance and decorators with their enclosing symbol', () => {
    const get = sample.symbols.indexOf(sym('Store.get'));
    const store = sample.symbols.indexOf(sym('Store'));
    const refs = sample.references.map((r) => [r.name, r.kind, r.line, r.fromSymbol]);
    expect(refs).toContainEqual(['self._lookup', 'attribute_call', 27, get]);
    expect(refs).toContainEqual(['helper', 'call', 28, get]);
    expect(refs).toContainEqual(['os.path.join', 'attribute_call', 28, get]);
    expect(refs).toContainEqual(['Base', 'inherit', 20, store]);
    expect(refs).toContainEqual(['abc.Mapping', 'inherit', 20, store]);
    expect(refs).toContainEqual(['dataclass', 'name', 19, null]);
    expect(refs).toContainEqual(['sorted', 'call', 33, sample.symbols.indexOf(sym('Store._lookup.inner'))]);
    expect(refs.filter((r) => r[1] === 'inherit')).toHaveLength(2);
  });

  it('reads imports with levels, names and aliases', () => {
    expect(sample.imports.map(({ specifier, names, alias, level, localNames }) => ({ specifier, names, alias, level, localNames }))).toEqual([
      { specifier: 'os.path', names: [], alias: 'osp', level: 0, localNames: undefined },
      { specifier: 'sys', names: [], alias: null, level: 0, localNames: undefined },
      { specifier: 'pkg.sub', names: ['thing', 'helper'], alias: null, level: 2, localNames: ['other', 'helper'] },
      { specifier: '', names: ['sibling'], alias: null, level: 1, localNames: ['sibling'] },
      { specifier: 'mod', names: ['*'], alias: null, level: 1, localNames: ['*'] },
    ]);
    const importRefs = sample.references.filter((r) => r.kind === 'import').map((r) => r.name);
    expect(importRefs).toEqual(['os.path', 'sys', '..pkg.sub.thing', '..pkg.sub.helper', '.sibling', '.mod']);
  });

  it('keeps rationale comments and ignores ordinary ones', () => {
    expect(sample.rationale).toEqual([
      { tag: 'TODO', text: 'cache this lookup', line: 26, fromSymbol: sample.symbols.indexOf(sym('Store.get')) },
      { tag: 'BECAUSE', text: 'Sorted because bisect needs ordered keys.', line: 31, fromSymbol: sample.symbols.indexOf(sym('Store._lookup')) },
    ]);
  });

  it('finds rationale comments anywhere but in strings, each once, with the innermost open symbol', () => {
    const source = [
      '# TODO: before any code', // 1
      'x = "TODO: in a string, because"  # NOTE: after a string', // 2
      'class A:', // 3
      '    # why the class body starts with a comment', // 4
      '    def m(self):', // 5
      '        s = """because a docstring-like string is no comment"""', // 6
      '        return 1  # HACK: because and why and TODO in one comment', // 7
      '    # FIXME: back in the class, after the method', // 8
      '', // 9
      "f(a,  # XXX: inside a call's arguments", // 10
      '  b)', // 11
      '# a comment that says "because" without a tag', // 12
      '# an ordinary comment', // 13
      '# todo: lowercase tags are not tags', // 14
    ].join('\n');
    const r = extractor.extract('python', source);
    const idx = (q: string) => r.symbols.findIndex((s) => s.qualifiedName === q);
    expect(r.rationale.map((x) => [x.tag, x.line, x.fromSymbol])).toEqual([
      ['TODO', 1, null],
      ['NOTE', 2, null],
      ['WHY', 4, idx('A')],
      ['HACK', 7, idx('A.m')],
      ['FIXME', 8, idx('A')],
      ['XXX', 10, null],
      ['BECAUSE', 12, null],
    ]);
    expect(r.rationale[3]!.text).toBe('because and why and TODO in one comment');
  });

  it('returns what it recovers from a file with syntax errors', () => {
    const broken = extractor.extract('python', 'def ok():\n    return 1\n\ndef broken(:\n    pass\n\nclass Later:\n    def m(self): pass\n');
    expect(broken.hasSyntaxErrors).toBe(true);
    const names = broken.symbols.map((s) => s.qualifiedName);
    expect(names).toContain('ok');
    expect(names).toContain('Later');
  });

  it('parses an empty file', () => {
    expect(extractor.extract('python', '')).toMatchObject({ symbols: [], imports: [], moduleDoc: null, hasSyntaxErrors: false });
  });
});

function findStdlibFile(relative: string): string | null {
  if (!existsSync('/usr/lib')) return null;
  const dirs = readdirSync('/usr/lib').filter((d) => /^python3\.\d+$/.test(d));
  for (const dir of dirs) {
    const path = join('/usr/lib', dir, relative);
    if (existsSync(path)) return path;
  }
  return null;
}

const decoderPath = findStdlibFile('json/decoder.py');

describe('python extraction on the standard library', () => {
  it.skipIf(decoderPath === null)('finds the known definitions of json/decoder.py (skipped: no /usr/lib/python3.* here)', () => {
    const result = extractor.extract('python', readFileSync(decoderPath!, 'utf8'));
    expect(result.hasSyntaxErrors).toBe(false);
    expect(result.moduleDoc).toMatch(/JSON/);
    const byName = new Map(result.symbols.map((s) => [s.qualifiedName, s]));
    expect(byName.get('JSONDecodeError')?.kind).toBe('class');
    expect(byName.get('JSONDecoder')?.kind).toBe('class');
    expect(byName.get('JSONDecoder.decode')?.kind).toBe('method');
    expect(byName.get('JSONDecoder.raw_decode')?.signature).toBe('def raw_decode(self, s, idx=0)');
    expect(byName.get('JSONObject')?.kind).toBe('function');
    expect(byName.get('FLAGS')?.kind).toBe('constant');
    expect(result.references).toContainEqual(expect.objectContaining({ name: 'ValueError', kind: 'inherit' }));
    expect(result.imports.map((i) => i.specifier)).toContain('re');
  });
});
