import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    exclude: ['e2e/**', 'node_modules/**', 'out/**'],
    projects: [
      { extends: true, test: { name: 'node', include: ['src/{shared,core,hosts,main}/**/*.test.ts', 'bench/**/*.test.ts'], environment: 'node' } },
      { extends: true, test: { name: 'renderer', include: ['src/renderer/**/*.test.{ts,tsx}'], environment: 'jsdom' } },
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
