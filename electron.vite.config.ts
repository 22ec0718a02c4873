import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import { buildCli } from './scripts/build-cli.mjs';

// main and preload are CommonJS (no "type": "module"), which a sandboxed preload requires.
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      // indexWorker: the indexer's parse worker thread (src/core/knowledge/indexer/parse/parsePool.ts finds it beside index.js);
      // embedThread: the embedding model's worker thread (src/core/knowledge/search/workerEmbedder.ts, the same way);
      // llamaHost: the built-in model runtime's host process (src/core/platform/llm/builtin/runtime.ts forks it from beside index.js).
      // node-llama-cpp stays external (externalizeDeps, on by default): its native binaries load from
      // node_modules/@node-llama-cpp/<platform>, so a packaged app must keep both outside the asar archive
      // (electron-builder: asarUnpack node_modules/node-llama-cpp/** and node_modules/@node-llama-cpp/**).
      rollupOptions: { input: { index: resolve(__dirname, 'src/main/index.ts'), indexWorker: resolve(__dirname, 'src/core/knowledge/indexer/parse/parseWorker.ts'), embedThread: resolve(__dirname, 'src/core/knowledge/search/embedWorker.ts'), llamaHost: resolve(__dirname, 'src/core/platform/llm/builtin/llamaHost.ts') } },
    },
    // The CLI bundle (out/cli, see scripts/build-cli.mjs) is built with the app, so every build
    // (`npm install`'s prepare, `npm run build`, `npm test`) leaves bin/cra.js a current bundle.
    plugins: [{ name: 'cra-cli-bundle', apply: 'build', closeBundle: () => buildCli(__dirname) }],
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rollupOptions: { input: resolve(__dirname, 'src/preload/index.ts') },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src/renderer'),
    build: {
      outDir: resolve(__dirname, 'out/renderer'),
      rollupOptions: { input: resolve(__dirname, 'src/renderer/index.html') },
      chunkSizeWarningLimit: 8000,
    },
    plugins: [react()],
  },
});
