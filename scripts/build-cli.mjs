// Builds the CLI into out/cli/: main.js (src/hosts/cli/main.ts) and the two worker entries it starts
// beside itself (indexWorker.js, embedThread.js; see parsePool.ts and workerEmbedder.ts). Our code
// is bundled with the pure-JS packages it needs at start (zod alone is ~95 files: resolving and
// reading them one by one cost more than the search itself); packages that find native binaries,
// wasm or model files beside their own code stay external (EXTERNAL), so native better-sqlite3 /
// sqlite-vec, the tree-sitter wasm files and the embedding model load from node_modules as they do
// from the sources. tinyld (800 kB of language tables, one file) stays external too: the chat requires
// it on its first language detection, and every other command would only pay to compile it.
// bin/cra.js runs this bundle while it is newer than every file under src/, else the sources
// through tsx. electron.vite.config.ts runs it after the main build (`npm install`, `npm run build`,
// `npx electron-vite build`); `node scripts/build-cli.mjs` runs it alone.
import { build } from 'esbuild';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Packages loaded from node_modules at run time: native addons, wasm/model files found by path, the loader. */
const EXTERNAL = ['better-sqlite3', 'sqlite-vec', 'web-tree-sitter', 'tree-sitter-wasms', 'tinyld', '@energetic-ai/*', 'tsx', 'ws', 'electron', 'esbuild'];

/** Bundle the CLI of the checkout at `root` into `<root>/out/cli`. */
export async function buildCli(root = join(import.meta.dirname, '..')) {
  await build({
    absWorkingDir: root,
    entryPoints: {
      main: join(root, 'src', 'hosts', 'cli', 'main.ts'),
      indexWorker: join(root, 'src', 'core', 'indexer', 'parse', 'parseWorker.ts'),
      embedThread: join(root, 'src', 'core', 'search', 'embedWorker.ts'),
    },
    outdir: join(root, 'out', 'cli'),
    bundle: true,
    platform: 'node',
    // CommonJS, like the sources run by tsx: __dirname, require of native modules, and dynamic
    // import() of a command's implementation becomes a lazy in-bundle initialiser.
    format: 'cjs',
    target: 'node20',
    external: EXTERNAL,
    sourcemap: 'linked',
    logLevel: 'warning',
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  buildCli().catch((error) => {
    process.stderr.write(`build-cli: ${error.message}\n`);
    process.exitCode = 1;
  });
}
