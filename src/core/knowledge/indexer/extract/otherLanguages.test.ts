import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExtractor, type Extractor } from './extractor';
import { detectLanguage, textLanguageOf } from './languages';
import type { FileExtraction } from './types';

let extractor: Extractor;
beforeAll(async () => {
  extractor = await createExtractor();
});
afterAll(() => extractor.dispose());

async function extractFixture(name: string): Promise<FileExtraction> {
  const language = detectLanguage(name);
  if (!language) throw new Error(`no language for ${name}`);
  return extractor.extractAsync(language, readFileSync(join(__dirname, 'fixtures', name), 'utf8'));
}

const outline = (r: FileExtraction) => r.symbols.map((s) => [s.qualifiedName, s.kind, s.startLine, s.parent === null ? null : r.symbols[s.parent]!.qualifiedName]);
const refs = (r: FileExtraction) => r.references.map((x) => [x.name, x.kind, x.line]);

describe('languages', () => {
  it('detects parsed languages by extension and names text languages', () => {
    expect(['a.py', 'a.pyi', 'a.mts', 'a.tsx', 'a.jsx', 'a.cjs', 'a.go', 'A.java', 'a.cs', 'a.rs', 'a.h', 'a.hpp', 'a.cc'].map(detectLanguage)).toEqual([
      'python', 'python', 'typescript', 'tsx', 'javascript', 'javascript', 'go', 'java', 'csharp', 'rust', 'c', 'cpp', 'cpp',
    ]);
    expect(detectLanguage('README.md')).toBeNull();
    expect(['README.md', 'a.json', 'b.yml', 'Cargo.toml', 'run.sh', 'x.html', 'y.css', 'Makefile', 'notes', 'src/app.py'].map(textLanguageOf)).toEqual([
      'markdown', 'json', 'yaml', 'toml', 'shell', 'html', 'css', 'makefile', 'text', 'python',
    ]);
  });

  it('loads grammars lazily and refuses a synchronous extract before loading', async () => {
    const fresh = await createExtractor();
    expect(fresh.isLoaded('go')).toBe(false);
    expect(() => fresh.extract('go', 'package x')).toThrow(/not loaded/);
    await fresh.load(['go']);
    expect(fresh.extract('go', 'package x\nfunc F() {}\n').symbols.map((s) => s.name)).toEqual(['F']);
    fresh.dispose();
  });
});

describe('go extraction', () => {
  it('finds types, functions, receiver methods, constants, imports and doc comments', async () => {
    const r = await extractFixture('sample.go');
    expect(outline(r)).toEqual([
      ['MaxItems', 'constant', 10, null],
      ['count', 'variable', 12, null],
      ['Cart', 'struct', 15, null],
      ['Store', 'interface', 19, null],
      ['Cart.Add', 'method', 24, 'Cart'],
      ['newCart', 'function', 29, null],
      ['Serve', 'function', 34, null],
    ]);
    expect(r.symbols.map((s) => s.isExported)).toEqual([true, false, true, true, true, false, true]);
    expect(r.symbols[4]).toMatchObject({ signature: 'func (c *Cart) Add(x int) error', docstring: 'Add appends an item.' });
    expect(r.symbols[2]).toMatchObject({ signature: 'type Cart struct', docstring: 'Cart holds items.' });
    expect(r.moduleDoc).toBe('Package shop sells things.');
    expect(r.imports.map((i) => [i.specifier, i.alias])).toEqual([['fmt', null], ['net/http', 'h']]);
    expect(refs(r)).toContainEqual(['fmt.Println', 'attribute_call', 25]);
    expect(r.rationale).toEqual([{ tag: 'HACK', text: 'preallocate because carts are small', line: 30, fromSymbol: 5 }]);
  });
});

describe('rust extraction', () => {
  it('qualifies impl methods by their type and reads use / mod', async () => {
    const r = await extractFixture('sample.rs');
    expect(outline(r)).toEqual([
      ['Cart', 'struct', 7, null],
      ['Api', 'trait', 11, null],
      ['Api.get', 'method', 12, 'Api'],
      ['Cart.get', 'method', 16, 'Cart'],
      ['Cart.new', 'method', 24, 'Cart'],
      ['Color', 'enum', 29, null],
      ['MAX', 'constant', 30, null],
      ['helper', 'function', 32, null],
    ]);
    expect(r.symbols[0]).toMatchObject({ docstring: 'A cart of items.', isExported: true });
    expect(r.symbols[4]).toMatchObject({ signature: 'pub fn new() -> Self', docstring: 'Makes an empty cart.' });
    expect(r.moduleDoc).toBe('The shop crate.');
    expect(r.imports.map((i) => [i.specifier, i.names, i.alias, i.isModule ?? false])).toEqual([
      ['std::io', ['self', 'Read'], null, false],
      ['crate::net::http', [], 'web', false],
      ['store', [], null, true],
    ]);
    expect(refs(r)).toEqual(expect.arrayContaining([['Api', 'inherit', 15], ['helper', 'call', 17], ['Vec::new', 'attribute_call', 25]]));
  });
});

describe('java and c# extraction', () => {
  it('reads Java classes, methods, Javadoc, imports and inheritance', async () => {
    const r = await extractFixture('sample.java');
    expect(outline(r)).toEqual([
      ['Cart', 'class', 7, null],
      ['Cart.add', 'method', 9, 'Cart'],
      ['Cart.helper', 'method', 15, 'Cart'],
      ['Cart.Listener', 'interface', 17, 'Cart'],
      ['Color', 'enum', 20, null],
    ]);
    expect(r.symbols[1]).toMatchObject({ signature: 'public void add(int x)', docstring: 'Adds an item.', isExported: true });
    expect(r.symbols[2]!.isExported).toBe(false);
    expect(r.imports.map((i) => [i.specifier, i.names])).toEqual([['java.util.List', []], ['com.shop.model', ['*']]]);
    expect(refs(r)).toEqual(expect.arrayContaining([['Base', 'inherit', 7], ['Sized', 'inherit', 7], ['items.add', 'attribute_call', 10], ['Item', 'call', 12]]));
  });

  it('reads C# namespaces, classes, structs, methods and usings', async () => {
    const r = await extractFixture('sample.cs');
    expect(outline(r)).toEqual([
      ['Shop', 'namespace', 4, null],
      ['Shop.Cart', 'class', 7, 'Shop'],
      ['Shop.Cart.Add', 'method', 9, 'Shop.Cart'],
      ['Shop.Cart.Helper', 'method', 10, 'Shop.Cart'],
      ['Shop.IApi', 'interface', 13, 'Shop'],
      ['Shop.Point', 'struct', 14, 'Shop'],
    ]);
    expect(r.symbols[1]).toMatchObject({ docstring: 'A cart.', signature: 'public class Cart : Base, IApi' });
    expect(r.imports.map((i) => i.specifier)).toEqual(['System.Text', 'Shop.Models']);
    expect(refs(r)).toEqual(expect.arrayContaining([['IApi', 'inherit', 7], ['this.Items.Add', 'attribute_call', 9], ['StringBuilder', 'call', 10]]));
  });
});

describe('c and c++ extraction', () => {
  it('reads C++ namespaces, classes, in-class and out-of-class methods, includes', async () => {
    const r = await extractFixture('sample.cpp');
    expect(outline(r)).toEqual([
      ['shop', 'namespace', 5, null],
      ['shop.Cart', 'class', 8, 'shop'],
      ['shop.Cart.add', 'method', 10, 'shop.Cart'],
      ['shop.Point', 'struct', 14, 'shop'],
      ['shop.Cart.size', 'method', 18, 'shop.Cart'],
      ['helper', 'function', 20, null],
    ]);
    expect(r.symbols[1]!.docstring).toBe('A cart.');
    expect(r.symbols[5]!.isExported).toBe(false);
    expect(r.imports.map((i) => [i.specifier, i.isSystem])).toEqual([['cart.h', false], ['vector', true]]);
    expect(refs(r)).toEqual(expect.arrayContaining([['Base', 'inherit', 8], ['items.push_back', 'attribute_call', 10], ['std::max', 'attribute_call', 18]]));
  });

  it('reads C functions, typedef structs, includes and the header comment', async () => {
    const r = await extractFixture('sample.c');
    expect(outline(r)).toEqual([
      ['cart', 'struct', 5, null],
      ['cart_t', 'type', 5, null],
      ['cart_add', 'function', 8, null],
      ['helper', 'function', 13, null],
    ]);
    expect(r.symbols[2]).toMatchObject({ signature: 'int cart_add(cart_t *c)', docstring: 'Adds one.' });
    expect(r.moduleDoc).toBe('Tiny C sample.');
    expect(r.imports.map((i) => [i.specifier, i.isSystem])).toEqual([['cart.h', false], ['stdio.h', true]]);
    expect(refs(r)).toContainEqual(['printf', 'call', 9]);
  });
});

describe('rationale comments in every grammar', () => {
  const rationale = async (language: Parameters<Extractor['extractAsync']>[0], source: string) => {
    const r = await extractor.extractAsync(language, source);
    return r.rationale.map((x) => [x.tag, x.line, x.fromSymbol === null ? null : r.symbols[x.fromSymbol]!.qualifiedName]);
  };

  it('reads Go and Rust comments (doc comments included), never strings', async () => {
    const go = ['package p', '// TODO: package level', 'func F() string {', '\ts := `because raw strings are no comments`', '\treturn s // NOTE: inside F', '}'];
    expect(await rationale('go', go.join('\n'))).toEqual([
      ['TODO', 2, null],
      ['NOTE', 5, 'F'],
    ]);
    const rust = [
      '//! WHY: the crate exists', // 1
      '/// TODO: document the cart', // 2
      'pub struct Cart { n: u32 }', // 3
      'impl Cart {', // 4
      '    /// Returns n because callers need it.', // 5
      '    pub fn get(&self) -> u32 {', // 6
      '        let s = "FIXME: because"; /* HACK: a block */', // 7
      '        self.n', // 8
      '    }', // 9
      '}', // 10
    ];
    expect(await rationale('rust', rust.join('\n'))).toEqual([
      ['WHY', 1, null],
      ['TODO', 2, null],
      ['BECAUSE', 5, 'Cart'],
      ['HACK', 7, 'Cart.get'],
    ]);
  });

  it('reads Java and C# comments, never strings', async () => {
    const java = ['class Cart {', '  /** NOTE: Javadoc can explain. */', '  void add() {', '    String s = "TODO: because"; // FIXME: inside add', '  }', '}'];
    expect(await rationale('java', java.join('\n'))).toEqual([
      ['NOTE', 2, 'Cart'],
      ['FIXME', 4, 'Cart.add'],
    ]);
    const csharp = ['namespace Shop {', '  class Cart {', '    /// <summary>Explains why it adds.</summary>', '    void Add() { var s = "HACK: no"; /* HACK: yes */ }', '  }', '}'];
    expect(await rationale('csharp', csharp.join('\n'))).toEqual([
      ['WHY', 3, 'Shop.Cart'],
      ['HACK', 4, 'Shop.Cart.Add'],
    ]);
  });

  it('reads C and C++ comments, never strings', async () => {
    const c = ['/* TODO: tune the size */', 'int f(void) {', '  const char *s = "NOTE: not a comment";', '  return 1; // XXX: because callers ignore it', '}'];
    expect(await rationale('c', c.join('\n'))).toEqual([
      ['TODO', 1, null],
      ['XXX', 4, 'f'],
    ]);
    const cpp = ['namespace shop {', 'class Cart {', '  int add() { /* WHY: in add */ return 1; } // HACK: after add, in the class', '};', '}', 'int shop::Cart::size() { /* NOTE: out of class */ return 0; }'];
    expect(await rationale('cpp', cpp.join('\n'))).toEqual([
      ['WHY', 3, 'shop.Cart.add'],
      ['HACK', 3, 'shop.Cart'],
      ['NOTE', 6, 'shop.Cart.size'],
    ]);
  });
});
