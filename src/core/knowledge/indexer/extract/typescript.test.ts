import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExtractor, type Extractor } from './extractor';
import type { FileExtraction } from './types';

let extractor: Extractor;
let sample: FileExtraction;
const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', name), 'utf8');

beforeAll(async () => {
  extractor = await createExtractor({ languages: ['typescript', 'tsx', 'javascript'] });
  sample = extractor.extract('typescript', fixture('sample.ts.txt'));
});
afterAll(() => extractor.dispose());

function symbolIn(result: FileExtraction, qualifiedName: string) {
  const found = result.symbols.find((s) => s.qualifiedName === qualifiedName);
  if (!found) throw new Error(`no symbol ${qualifiedName} in ${result.symbols.map((s) => s.qualifiedName).join(', ')}`);
  return found;
}
const sym = (q: string) => symbolIn(sample, q);
const indexOf = (q: string) => sample.symbols.indexOf(sym(q));

describe('typescript extraction', () => {
  it('finds every declaration kind with qualified names and lines', () => {
    expect(sample.symbols.map((s) => [s.qualifiedName, s.kind, s.startLine, s.endLine])).toEqual([
      ['MAX_BATCH', 'constant', 12, 12],
      ['counter', 'variable', 13, 13],
      ['add', 'function', 16, 18],
      ['double', 'function', 20, 20],
      ['Shape', 'interface', 22, 24],
      ['Id', 'type', 26, 26],
      ['Color', 'enum', 28, 28],
      ['Circle', 'class', 30, 46],
      ['Circle.area', 'method', 34, 37],
      ['Circle.diameter', 'method', 39, 41],
      ['Circle.square', 'method', 43, 45],
      ['Geometry', 'namespace', 48, 52],
      ['Geometry.unit', 'function', 49, 51],
      ['ids', 'function', 54, 56],
      ['lazy', 'variable', 58, 58],
      ['fs', 'variable', 59, 59],
    ]);
  });

  it('marks exports, reads JSDoc and signatures', () => {
    expect(sym('MAX_BATCH')).toMatchObject({ isExported: true, docstring: 'Largest batch.' });
    expect(sym('add')).toMatchObject({ isExported: true, docstring: 'Adds two numbers.', signature: 'export function add(a: number, b: number): number' });
    expect(sym('counter').isExported).toBe(false);
    expect(sym('Color').isExported).toBe(false);
    expect(sym('Circle')).toMatchObject({ isExported: true, signature: 'export default class Circle extends Figure implements Shape, ns.Drawable' });
    expect(sym('Circle.area')).toMatchObject({ docstring: 'The area.', signature: 'area(): number', parent: indexOf('Circle'), isExported: true });
    expect(sym('Circle.square').isExported).toBe(false);
    expect(sym('Geometry.unit')).toMatchObject({ isExported: true, parent: indexOf('Geometry') });
    expect(sample.moduleDoc).toBe('Sample module for the TypeScript extractor tests.');
  });

  it('reads every import form', () => {
    const imports = sample.imports.map(({ specifier, names, alias, isReexport, line }) => ({ specifier, names, alias, isReexport, line }));
    expect(imports).toEqual([
      { specifier: './config', names: ['Config'], alias: null, isReexport: false, line: 4 },
      { specifier: '../lib/util.js', names: ['default', 'helper', 'other'], alias: null, isReexport: false, line: 5 },
      { specifier: 'node:path', names: ['*'], alias: 'path', isReexport: false, line: 6 },
      { specifier: 'side-effect', names: [], alias: null, isReexport: false, line: 7 },
      { specifier: './parse', names: ['parse'], alias: null, isReexport: true, line: 8 },
      { specifier: './all', names: ['*'], alias: null, isReexport: true, line: 9 },
      { specifier: './lazy', names: [], alias: null, isReexport: false, line: 58 },
      { specifier: 'fs', names: [], alias: null, isReexport: false, line: 59 },
    ]);
    expect(sample.imports[1]!.localNames).toEqual(['Default', 'help', 'other']);
  });

  it('records calls, constructions, member calls and inheritance by name', () => {
    const refs = sample.references.filter((r) => r.kind !== 'import').map((r) => [r.name, r.kind, r.line, r.fromSymbol]);
    expect(refs).toEqual([
      ['help', 'call', 17, indexOf('add')],
      ['Base', 'inherit', 22, indexOf('Shape')],
      ['Named', 'inherit', 22, indexOf('Shape')],
      ['Figure', 'inherit', 30, indexOf('Circle')],
      ['Shape', 'inherit', 30, indexOf('Circle')],
      ['ns.Drawable', 'inherit', 30, indexOf('Circle')],
      ['this.square', 'attribute_call', 36, indexOf('Circle.area')],
      ['Measure', 'call', 40, indexOf('Circle.diameter')],
      ['Circle', 'call', 50, indexOf('Geometry.unit')],
    ]);
    expect(sample.rationale).toEqual([{ tag: 'NOTE', text: 'uses Math.PI because it is precise enough', line: 35, fromSymbol: indexOf('Circle.area') }]);
  });

  it('parses JSX with the javascript grammar', () => {
    const jsx = extractor.extract('javascript', fixture('sample.jsx.txt'));
    expect(jsx.hasSyntaxErrors).toBe(false);
    expect(jsx.symbols.map((s) => [s.qualifiedName, s.kind, s.isExported])).toEqual([
      ['join', 'variable', false],
      ['Button', 'class', true],
      ['Button.render', 'method', true],
      ['App', 'function', true],
    ]);
    expect(jsx.imports.map((i) => i.specifier)).toEqual(['react', 'path']);
    expect(jsx.references).toContainEqual({ name: 'React.Component', kind: 'inherit', line: 5, fromSymbol: 1 });
    expect(jsx.references).toContainEqual({ name: 'this.props.onClick', kind: 'attribute_call', line: 8, fromSymbol: 2 });
    expect(jsx.rationale).toEqual([{ tag: 'TODO', text: 'split this file', line: 1, fromSymbol: null }]);
  });

  it('finds rationale in comments only: in methods, template substitutions, JSDoc and after the last declaration', () => {
    const source = [
      "const s = 'TODO: a string, because'; // NOTE: a line comment", // 1
      'export class K {', // 2
      '  m(): string {', // 3
      '    return `FIXME: a template ${s /* HACK: inside a substitution */}`;', // 4
      '  }', // 5
      '  /** Explains why the field exists. */', // 6
      '  f = 1;', // 7
      '}', // 8
      '/* XXX: trailing block */', // 9
    ].join('\n');
    for (const language of ['typescript', 'tsx'] as const) {
      const r = extractor.extract(language, source);
      const idx = (q: string) => r.symbols.indexOf(symbolIn(r, q));
      expect(r.rationale.map((x) => [x.tag, x.line, x.fromSymbol])).toEqual([
        ['NOTE', 1, null],
        ['HACK', 4, idx('K.m')],
        ['WHY', 6, idx('K')],
        ['XXX', 9, null],
      ]);
    }
    const js = extractor.extract('javascript', 'function g() {\n  return "why"; // TODO: because reasons\n}\n');
    expect(js.rationale).toEqual([{ tag: 'TODO', text: 'because reasons', line: 2, fromSymbol: 0 }]);
  });

  it('parses TSX and recovers from syntax errors', () => {
    const view = extractor.extract('tsx', 'export function View(p: { n: number }) {\n  return <div>{p.n}</div>;\n}\n');
    expect(view.symbols.map((s) => s.name)).toEqual(['View']);
    const broken = extractor.extract('typescript', 'export function ok() { return 1 }\nclass Broken {\n  m( { \n}\nexport const LATER = 2;\n');
    expect(broken.hasSyntaxErrors).toBe(true);
    expect(broken.symbols.map((s) => s.name)).toContain('ok');
  });
});

describe('the grammars TypeScript, TSX and JavaScript are parsed with', () => {
  it("come from their own packages (tree-sitter-typescript, tree-sitter-javascript), the rest from tree-sitter-wasms", async () => {
    const { grammarFile } = await import('./extractor');
    const { SPECS } = await import('./registry');
    expect(grammarFile(SPECS.typescript).file).toMatch(/node_modules[\\/]tree-sitter-typescript[\\/]tree-sitter-typescript\.wasm$/);
    expect(grammarFile(SPECS.tsx).file).toMatch(/node_modules[\\/]tree-sitter-typescript[\\/]tree-sitter-tsx\.wasm$/);
    expect(grammarFile(SPECS.javascript).file).toMatch(/node_modules[\\/]tree-sitter-javascript[\\/]tree-sitter-javascript\.wasm$/);
    expect(grammarFile(SPECS.python).file).toMatch(/node_modules[\\/]tree-sitter-wasms[\\/]out[\\/]tree-sitter-python\.wasm$/);
    // A folder given by the caller holds every grammar.
    expect(grammarFile(SPECS.typescript, '/g').file).toBe(join('/g', 'tree-sitter-typescript.wasm'));
  });

  it('parse a decorator with type arguments, which tree-sitter-wasms\' TypeScript grammar (0.20.5) did not: the class keeps its members', () => {
    const source = [
      '@Entity("orders")',
      'export class Order {',
      '    @Column("uuid")',
      '    @ForeignKey<User>("User", "uuid")',
      '    userUuid: string',
      '',
      '    total(): number {',
      '        return 1',
      '    }',
      '}',
      '',
    ].join('\n');
    const result = extractor.extract('typescript', source);
    expect(result.hasSyntaxErrors).toBe(false);
    expect(symbolIn(result, 'Order')).toMatchObject({ kind: 'class', startLine: 1, endLine: 10 });
    expect(symbolIn(result, 'Order.total')).toMatchObject({ kind: 'method', startLine: 7, endLine: 9 });
  });
});
