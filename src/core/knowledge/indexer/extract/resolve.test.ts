import { describe, expect, it } from 'vitest';
import { createImportResolver } from './resolve';
import { parseJsonc } from './resolveScript';
import type { ExtractedImport, ParsedLanguage } from './types';

function imp(specifier: string, extra: Partial<ExtractedImport> = {}): ExtractedImport {
  return { specifier, names: [], alias: null, level: 0, isReexport: false, isSystem: false, line: 1, ...extra };
}

function resolverFor(files: Record<string, string>) {
  const resolver = createImportResolver({ files: Object.keys(files), readFile: (p) => files[p] ?? null });
  return (from: string, i: ExtractedImport, lang: ParsedLanguage) => resolver.resolve(from, i, lang);
}

describe('python import resolution', () => {
  const resolve = resolverFor({
    'app/__init__.py': '',
    'app/models.py': '',
    'app/util/__init__.py': '',
    'app/util/text.py': '',
    'app/util/deep/__init__.py': '',
    'app/util/deep/x.py': '',
    'src/lib1/__init__.py': '',
    'src/lib1/core.py': '',
    'scripts/run.py': '',
    'scripts/helpers.py': '',
    'setup.py': '',
  });

  it('resolves absolute modules and packages from the root', () => {
    expect(resolve('setup.py', imp('app.models'), 'python')).toEqual(['app/models.py']);
    expect(resolve('setup.py', imp('app.util'), 'python')).toEqual(['app/util/__init__.py']);
    expect(resolve('setup.py', imp('os.path'), 'python')).toEqual([]);
  });

  it('resolves `from pkg import mod` to the submodule, other names to the package', () => {
    expect(resolve('setup.py', imp('app.util', { names: ['text'] }), 'python')).toEqual(['app/util/text.py']);
    expect(resolve('setup.py', imp('app.util', { names: ['text', 'helper'] }), 'python')).toEqual(['app/util/text.py', 'app/util/__init__.py']);
    expect(resolve('setup.py', imp('app', { names: ['*'] }), 'python')).toEqual(['app/__init__.py']);
  });

  it('resolves from a detected src/ root and from the script directory', () => {
    expect(resolve('app/models.py', imp('lib1.core'), 'python')).toEqual(['src/lib1/core.py']);
    expect(resolve('scripts/run.py', imp('helpers'), 'python')).toEqual(['scripts/helpers.py']);
  });

  it('resolves relative imports by level', () => {
    expect(resolve('app/util/deep/x.py', imp('text', { level: 2 }), 'python')).toEqual(['app/util/text.py']);
    expect(resolve('app/util/deep/x.py', imp('', { level: 3, names: ['models'] }), 'python')).toEqual(['app/models.py']);
    expect(resolve('app/util/text.py', imp('', { level: 1, names: ['deep'] }), 'python')).toEqual(['app/util/deep/__init__.py']);
    expect(resolve('app/util/text.py', imp('', { level: 1, names: ['nothing'] }), 'python')).toEqual(['app/util/__init__.py']);
    expect(resolve('app/models.py', imp('x', { level: 5 }), 'python')).toEqual([]);
  });
});

describe('typescript / javascript import resolution', () => {
  const resolve = resolverFor({
    'tsconfig.base.json': '{ "compilerOptions": { "baseUrl": "." } }',
    'tsconfig.json': `{
      // comments and trailing commas are allowed
      "extends": "./tsconfig.base",
      "compilerOptions": { "paths": { "@app/*": ["src/app/*"], "~config": ["src/config/index.ts"], }, },
    }`,
    'src/main.ts': '',
    'src/util.ts': '',
    'src/types.d.ts': '',
    'src/app/store.tsx': '',
    'src/config/index.ts': '',
    'src/lib/index.js': '',
    'src/legacy.mts': '',
    'web/jsconfig.json': '{ "compilerOptions": { "baseUrl": "js" } }',
    'web/js/widgets/button.jsx': '',
    'web/page.js': '',
  });

  it('probes extensions and index files for relative specifiers', () => {
    expect(resolve('src/main.ts', imp('./util'), 'typescript')).toEqual(['src/util.ts']);
    expect(resolve('src/main.ts', imp('./types'), 'typescript')).toEqual(['src/types.d.ts']);
    expect(resolve('src/main.ts', imp('./lib'), 'typescript')).toEqual(['src/lib/index.js']);
    expect(resolve('src/app/store.tsx', imp('../config'), 'tsx')).toEqual(['src/config/index.ts']);
    expect(resolve('src/main.ts', imp('./missing'), 'typescript')).toEqual([]);
  });

  it('maps .js / .mjs specifiers to their TypeScript sources', () => {
    expect(resolve('src/main.ts', imp('./util.js'), 'typescript')).toEqual(['src/util.ts']);
    expect(resolve('src/main.ts', imp('./legacy.mjs'), 'typescript')).toEqual(['src/legacy.mts']);
    expect(resolve('src/main.ts', imp('./lib/index.js'), 'typescript')).toEqual(['src/lib/index.js']);
  });

  it('uses tsconfig paths (following extends) and baseUrl', () => {
    expect(resolve('src/main.ts', imp('@app/store'), 'typescript')).toEqual(['src/app/store.tsx']);
    expect(resolve('src/main.ts', imp('~config'), 'typescript')).toEqual(['src/config/index.ts']);
    expect(resolve('src/main.ts', imp('src/util'), 'typescript')).toEqual(['src/util.ts']);
    expect(resolve('src/main.ts', imp('react'), 'typescript')).toEqual([]);
  });

  it('uses the nearest jsconfig.json', () => {
    expect(resolve('web/page.js', imp('widgets/button'), 'javascript')).toEqual(['web/js/widgets/button.jsx']);
  });

  it('parses JSONC and rejects garbage', () => {
    expect(parseJsonc('{"a": "// not a comment", /* c */ "b": [1,],}')).toEqual({ a: '// not a comment', b: [1] });
    expect(parseJsonc('{ nope')).toBeNull();
  });
});

describe('other languages', () => {
  const resolve = resolverFor({
    'go.mod': 'module example.com/shop\n\ngo 1.22\n',
    'cart/cart.go': '',
    'cart/cart_test.go': '',
    'cart/total.go': '',
    'main.go': '',
    'native/src/parse.c': '',
    'native/include/lib/parse.h': '',
    'native/src/local.h': '',
    'java/src/com/shop/Cart.java': '',
    'java/src/com/shop/Item.java': '',
    'Cargo.toml': '',
    'src/main.rs': '',
    'src/net.rs': '',
    'src/net/http.rs': '',
    'src/store/mod.rs': '',
    'src/store/disk.rs': '',
    'cs/Shop/Models/Order.cs': '',
  });

  it('resolves Go packages through go.mod to non-test files', () => {
    expect(resolve('main.go', imp('example.com/shop/cart'), 'go').sort()).toEqual(['cart/cart.go', 'cart/total.go']);
    expect(resolve('main.go', imp('net/http'), 'go')).toEqual([]);
  });

  it('resolves C includes relative to the file, then by unique suffix', () => {
    expect(resolve('native/src/parse.c', imp('local.h'), 'c')).toEqual(['native/src/local.h']);
    expect(resolve('native/src/parse.c', imp('lib/parse.h'), 'c')).toEqual(['native/include/lib/parse.h']);
    expect(resolve('native/src/parse.c', imp('lib/parse.h', { isSystem: true }), 'c')).toEqual(['native/include/lib/parse.h']);
    expect(resolve('native/src/parse.c', imp('stdio.h', { isSystem: true }), 'c')).toEqual([]);
  });

  it('resolves Java classes and wildcard packages', () => {
    expect(resolve('java/src/com/shop/Cart.java', imp('com.shop.Item'), 'java')).toEqual(['java/src/com/shop/Item.java']);
    expect(resolve('x.java', imp('com.shop', { names: ['*'] }), 'java').sort()).toEqual(['java/src/com/shop/Cart.java', 'java/src/com/shop/Item.java']);
    expect(resolve('x.java', imp('java.util.List'), 'java')).toEqual([]);
  });

  it('resolves Rust mod declarations and crate paths', () => {
    expect(resolve('src/main.rs', imp('net', { isModule: true }), 'rust')).toEqual(['src/net.rs']);
    expect(resolve('src/main.rs', imp('store', { isModule: true }), 'rust')).toEqual(['src/store/mod.rs']);
    expect(resolve('src/net.rs', imp('http', { isModule: true }), 'rust')).toEqual(['src/net/http.rs']);
    expect(resolve('src/store/mod.rs', imp('crate::net::http::get'), 'rust')).toEqual(['src/net/http.rs']);
    expect(resolve('src/store/mod.rs', imp('self::disk::Disk'), 'rust')).toEqual(['src/store/disk.rs']);
    expect(resolve('src/main.rs', imp('std::io'), 'rust')).toEqual([]);
  });

  it('resolves C# usings only on a unique file match', () => {
    expect(resolve('cs/Program.cs', imp('Shop.Models.Order'), 'csharp')).toEqual(['cs/Shop/Models/Order.cs']);
    expect(resolve('cs/Program.cs', imp('System.Text'), 'csharp')).toEqual([]);
  });
});
