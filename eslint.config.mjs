import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

// The layering rule of ARCHITECTURE.md: who may import whom.
const layerZones = [
  { target: './src/shared', from: ['./src/core', './src/hosts', './src/main', './src/preload', './src/renderer'], message: 'shared imports nothing of ours.' },
  { target: './src/core', from: ['./src/hosts', './src/main', './src/preload', './src/renderer'], message: 'core never imports a host or the UI.' },
  { target: './src/hosts', from: ['./src/main', './src/preload', './src/renderer'], message: 'hosts use core and shared only.' },
  { target: './src/main', from: ['./src/preload', './src/renderer'], message: 'main uses core, hosts/serve/csp and shared only.' },
  { target: './src/preload', from: ['./src/core', './src/hosts', './src/main', './src/renderer'], message: 'preload uses electron and shared types only.' },
  { target: './src/renderer', from: ['./src/core', './src/hosts', './src/main', './src/preload'], message: 'the renderer talks to the engine through lib/client.ts only.' },
];

const testSupportZone = { target: './src', from: './src/core/testing', message: 'src/core/testing is test support: only tests, benches and other test support import it.' };

// The contract is the hosts' only front door (issue 23; src/hosts/hostImports.test.ts checks the
// same over the whole folder): a host's product code reaches the engine through createCore, the
// contract's dispatch and clients and paths, never its internals.
const hostsFrontDoorZone = {
  target: './src/hosts',
  from: './src/core',
  except: ['./app/createCore.ts', './app/contract/dispatch.ts', './app/contract/client.ts', './app/contract/inMemoryTransport.ts', './platform/paths.ts'],
  message: 'hosts reach the engine through its contract (createCore, contract/dispatch, contract/client, paths): make what you need a request.',
};

// The levels of src/core (docs/architecture.md): a level imports its own and the levels below, and
// another folder reaches a feature through its entry module (features/<name>/index.ts). Product code
// only: a test may build a whole engine. src/core/levels.test.ts checks the same over the whole tree.
const coreLevels = ['platform', 'knowledge', 'features', 'lab', 'app'];
const coreFeatures = ['chat', 'retrieval', 'plans', 'review'];
const levelZones = [
  ...coreLevels.slice(0, -1).map((level, i) => ({
    target: `./src/core/${level}`,
    from: coreLevels.slice(i + 1).map((above) => `./src/core/${above}`),
    message: `src/core/${level} may import only its own level and those below it (${coreLevels.slice(0, i + 1).join(', ')}).`,
  })),
  ...coreFeatures.map((feature) => ({
    target: [...coreLevels.filter((l) => l !== 'features').map((l) => `./src/core/${l}`), ...coreFeatures.filter((f) => f !== feature).map((f) => `./src/core/features/${f}`)],
    from: `./src/core/features/${feature}`,
    except: ['./index.ts'],
    message: `import the ${feature} feature from its entry module (src/core/features/${feature}/index.ts), not a file inside it.`,
  })),
];

const nodeBuiltins = ['fs', 'path', 'os', 'child_process', 'crypto', 'http', 'net', 'url', 'worker_threads', 'stream'].flatMap((m) => [m, `node:${m}`]);

export default tseslint.config(
  { ignores: ['out/**', 'node_modules/**', 'bin/**', 'scripts/**', '.ci/**', 'test-results/**', 'playwright-report/**', 'eslint.config.mjs'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx}'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'] })] },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: layerZones }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['src/main/**', 'src/preload/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'Only src/main and src/preload may import electron.' }] }] },
  },
  {
    files: ['src/renderer/**/*.{ts,tsx}', 'src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: 'Only src/main and src/preload may import electron.' }, ...nodeBuiltins.map((name) => ({ name, message: 'No Node built-ins outside core, hosts and main.' }))],
        },
      ],
    },
  },
  {
    // No import cycles in the engine (resolve.ts and its per-language resolvers had one): a module
    // both sides need goes in a third file.
    files: ['src/core/**/*.ts'],
    // The rule follows only imports of files with these extensions (the default is JavaScript only).
    settings: { 'import-x/extensions': ['.ts', '.js'] },
    rules: { 'import-x/no-cycle': 'error' },
  },
  {
    // Test support lives in src/core/testing (a host's own in src/hosts/*/testing): product code never reaches it.
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['src/**/*.test.{ts,tsx}', 'src/core/testing/**', 'src/hosts/*/testing/**'],
    rules: { 'import-x/no-restricted-paths': ['error', { zones: [...layerZones, ...levelZones, testSupportZone, hostsFrontDoorZone] }] },
  },
  {
    // The loopback model server is test support only: product code must never reach it.
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['src/**/*.test.{ts,tsx}', 'src/core/testing/**', 'src/hosts/cli/testing/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "ImportDeclaration[source.value=/testing\\/(ollamaTestServer|testServer)/]", message: 'The loopback model server is test support only.' },
      ],
    },
  },
);
