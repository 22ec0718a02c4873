// Builds the CLI into out/cli/: main.js (src/hosts/cli/main.ts: commander and the commands' options),
// engine.js (everything a command's action requires) with its loaders codeCache.js and
// dynamicImport.js, the entries the engine starts beside itself (indexWorker.js, embedThread.js,
// llamaHost.js; see parsePool.ts, workerEmbedder.ts and llm/builtin/runtime.ts), and sources.json
// (the source files the bundles were built from, for bin/cra.js's freshness check).
// Our code is bundled with the pure-JS packages it needs (zod alone is ~95 files: resolving and
// reading them one by one cost more than the search itself); packages that find native binaries,
// wasm or model files beside their own code stay external (EXTERNAL), so sqlite-vec, the tree-sitter
// wasm files and the embedding model load from node_modules as they do from the sources.
// better-sqlite3 is external except in engine.js, which carries its JavaScript and opens its binary
// by path. tinyld (800 kB of language tables, one file) stays external too: the chat requires
// it on its first language detection, and every other command would only pay to compile it.
//
// Why two bundles: `cra --version` and `cra --help` need only main.js (~150 kB), and a command
// compiles the engine when its action runs. The split follows the sources: main.js holds the modules
// main.ts imports statically (the start graph); each module a start-graph file require()s lazily is
// a lazy entry of engine.js. The start-graph modules the engine also imports (AppError, paths,
// printable…) are not copied into engine.js: main.js publishes them and engine.js takes them from
// there, so a class is one class (an AppError thrown by the engine is an AppError to the CLI).
// bin/cra.js runs this bundle while it is newer than the sources it was built from, else the sources
// through tsx. electron.vite.config.ts runs it after the main build (`npm install`, `npm run build`,
// `npx electron-vite build`); `node scripts/build-cli.mjs` runs it alone.
import { build } from 'esbuild';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Packages loaded from node_modules at run time: native addons, wasm/model files found by path, the loader. */
const EXTERNAL = ['better-sqlite3', 'sqlite-vec', 'web-tree-sitter', 'tree-sitter-wasms', 'tinyld', '@energetic-ai/*', 'tsx', 'ws', 'electron', 'esbuild', 'node-llama-cpp', '@node-llama-cpp/*'];

/** Where main.js publishes the start-graph modules engine.js shares (a registry on globalThis). */
const SHARED_KEY = 'Symbol.for("clean-room.cli.shared")';

/**
 * How main.js and engine.js import ESM packages (the embedding model, node:os…): a script V8 compiled
 * from a code cache has lost Node's dynamic-import hook (Node 20: "A dynamic import callback was not
 * specified"), so each `import("x")` of a bundle becomes `__craDynamicImport("x")`, which requires
 * this small module (compiled by Node itself, beside the bundles) on first use.
 */
const DYNAMIC_IMPORT_MODULE = `'use strict';
// import() for out/cli/main.js and engine.js, which run from V8's code cache (see scripts/build-cli.mjs).
module.exports = (specifier) => import(specifier);
`;
const DYNAMIC_IMPORT_BANNER = 'var __craDynamicImport = (specifier) => require("./dynamicImport.js")(specifier);';

/**
 * Route the `import("…")` calls esbuild kept in `file` (external packages) through __craDynamicImport,
 * and write it in ASCII: esbuild leaves non-ASCII characters in comments and regular expressions,
 * which made the whole 3 MB engine.js a two-byte string to decode on every start (codeCache.js reads
 * an ASCII file as latin1). `\uXXXX` means the same character in a comment, string, template, regular
 * expression (a character class included) and identifier; only a tagged template's raw text would
 * differ, and the bundles have none with such a character (the String.raw ones build RegExps, which
 * read the escape as the character).
 */
function finishBundle(file) {
  const text = readFileSync(file, 'utf8')
    .replace(/\bimport\("([^"\\]+)"\)/g, (_, specifier) => `__craDynamicImport(${JSON.stringify(specifier)})`)
    .replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  writeFileSync(file, text);
}

/** Options every bundle shares. CommonJS, like the sources run by tsx: __dirname and require of native modules. */
const common = (root) => ({
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: EXTERNAL,
  logLevel: 'warning',
});

/** `file` relative to `root` with forward slashes: the key of a module in both bundles. */
const keyOf = (root, file) => relative(root, file).split(sep).join('/');

/**
 * The start graph of main.ts (the files reached by static imports, packages excluded) and the lazy
 * entries (files a start-graph file require()s or import()s that are not in the start graph).
 */
async function splitPoints(root, entry) {
  const { metafile } = await build({ ...common(root), entryPoints: [entry], write: false, outdir: join(root, 'out', 'cli'), metafile: true });
  const inputs = metafile.inputs;
  const isOurs = (path) => path.startsWith('src/');
  const start = new Set();
  const queue = [keyOf(root, entry)];
  while (queue.length > 0) {
    const file = queue.pop();
    if (start.has(file)) continue;
    start.add(file);
    for (const edge of inputs[file]?.imports ?? []) if (edge.kind === 'import-statement' && !edge.external && isOurs(edge.path)) queue.push(edge.path);
  }
  const lazy = new Set();
  for (const file of start) {
    for (const edge of inputs[file]?.imports ?? []) {
      if ((edge.kind === 'require-call' || edge.kind === 'dynamic-import') && !edge.external && isOurs(edge.path) && !start.has(edge.path)) lazy.add(edge.path);
    }
  }
  return { start, lazy: [...lazy].sort(), inputs: Object.keys(inputs).filter(isOurs) };
}

/** An esbuild plugin: imports of files whose key satisfies `pick` load `contents(key)` instead. */
function redirect(name, root, pick, contents) {
  return {
    name,
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === name || args.namespace === name || args.kind === 'entry-point') return undefined;
        const resolved = await b.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, importer: args.importer, pluginData: name });
        if (resolved.errors.length > 0 || resolved.external || !resolved.path.startsWith(root)) return undefined;
        const key = keyOf(root, resolved.path);
        return pick(key) ? { path: key, namespace: name } : undefined;
      });
      b.onLoad({ filter: /.*/, namespace: name }, (args) => ({ contents: contents(args.path), loader: 'js', resolveDir: root }));
    },
  };
}

/** Bundle the CLI of the checkout at `root` into `outdir` (default `<root>/out/cli`; a folder under `<root>/out` in tests). */
export async function buildCli(root = join(import.meta.dirname, '..'), outdir = join(root, 'out', 'cli')) {
  const entry = join(root, 'src', 'hosts', 'cli', 'main.ts');
  const { start, lazy, inputs } = await splitPoints(root, entry);
  const shared = [...start].filter((key) => key !== keyOf(root, entry)).sort();
  const lazySet = new Set(lazy);

  // main.js: publishes the shared start-graph modules, then is main.ts; a lazy require becomes a
  // require of that module from engine.js (loaded once, with the code cache; see codeCache.js).
  const mainEntry = [
    ...shared.map((key, i) => `import * as shared${i} from ${JSON.stringify(`./${key}`)};`),
    `globalThis[${SHARED_KEY}] = { ${shared.map((key, i) => `${JSON.stringify(key)}: shared${i}`).join(', ')} };`,
    `export * from ${JSON.stringify(`./${keyOf(root, entry)}`)};`,
  ].join('\n');
  const engineStub = (key) =>
    [
      `const { requireWithCodeCache } = require("./codeCache.js");`,
      `module.exports = requireWithCodeCache(require("node:path").join(__dirname, "engine.js")).load(${JSON.stringify(key)});`,
    ].join('\n');
  await build({
    ...common(root),
    stdin: { contents: mainEntry, resolveDir: root, sourcefile: 'cli-main-entry.js', loader: 'js' },
    outfile: join(outdir, 'main.js'),
    sourcemap: 'linked',
    banner: { js: DYNAMIC_IMPORT_BANNER },
    plugins: [
      redirect('cra-engine', root, (key) => lazySet.has(key), engineStub),
      { name: 'cra-code-cache', setup: (b) => b.onResolve({ filter: /^\.\/codeCache\.js$/ }, (args) => (args.namespace === 'cra-engine' ? { path: args.path, external: true } : undefined)) },
    ],
  });

  // engine.js: `load(key)` initialises one lazy entry (and what it imports) on first call; nothing
  // runs when the file is loaded. Shared start-graph modules come from main.js's registry.
  const engineEntry = [
    'const entries = {',
    ...lazy.map((key) => `  ${JSON.stringify(key)}: () => require(${JSON.stringify(`./${key}`)}),`),
    '};',
    'exports.load = (key) => {',
    '  const entry = entries[key];',
    '  if (!entry) throw new Error(`engine.js has no module ${key}: rebuild the CLI (node scripts/build-cli.mjs)`);',
    '  return entry();',
    '};',
  ].join('\n');
  await build({
    ...common(root),
    // better-sqlite3's JavaScript is bundled (its binary stays in node_modules, opened by path:
    // platform/db/open.ts installedBinding), so a start does not resolve, read and compile its ~15
    // files one by one; the workers keep it external.
    external: EXTERNAL.filter((name) => name !== 'better-sqlite3'),
    stdin: { contents: engineEntry, resolveDir: root, sourcefile: 'cli-engine-entry.js', loader: 'js' },
    outfile: join(outdir, 'engine.js'),
    sourcemap: 'linked',
    banner: { js: DYNAMIC_IMPORT_BANNER },
    plugins: [redirect('cra-shared', root, (key) => shared.includes(key), (key) => `module.exports = globalThis[${SHARED_KEY}][${JSON.stringify(key)}];`)],
  });

  for (const name of ['main.js', 'engine.js']) finishBundle(join(outdir, name));
  writeFileSync(join(outdir, 'dynamicImport.js'), DYNAMIC_IMPORT_MODULE);

  // The worker and host entries: separate threads or processes, each its own bundle (loaded by Node,
  // not from a code cache, so their import() of node-llama-cpp is Node's own).
  const workers = await build({
    ...common(root),
    entryPoints: {
      indexWorker: join(root, 'src', 'core', 'knowledge', 'indexer', 'parse', 'parseWorker.ts'),
      embedThread: join(root, 'src', 'core', 'knowledge', 'search', 'embedWorker.ts'),
      llamaHost: join(root, 'src', 'core', 'platform', 'llm', 'builtin', 'llamaHost.ts'),
    },
    outdir,
    sourcemap: 'linked',
    metafile: true,
  });
  // The loader the engine stub requires, beside the bundles (so out/cli is whole by itself).
  copyFileSync(join(root, 'src', 'core', 'platform', 'runtime', 'codeCache.js'), join(outdir, 'codeCache.js'));
  const sources = new Set(['src/core/platform/runtime/codeCache.js', ...inputs, ...lazy, ...Object.keys(workers.metafile.inputs).filter((path) => path.startsWith('src/'))]);
  writeFileSync(join(outdir, 'sources.json'), `${JSON.stringify([...sources].sort(), null, 1)}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  buildCli().catch((error) => {
    process.stderr.write(`build-cli: ${error.message}\n`);
    process.exitCode = 1;
  });
}
