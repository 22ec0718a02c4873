import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../core/platform/paths';
import { makeIndexedRepo } from '../../core/testing/searchRepo';

/**
 * What a start loads (issue #25): a command loads only what it uses. Each case runs the CLI's
 * sources through tsx in a fresh Node process and lists the packages in require's cache when it
 * exits, so a static import that drags a heavy package into start-up shows here.
 */

/** Packages that are loaded on first use only: language detection, YAML, tree-sitter, zod, the embedding model. */
const HEAVY = ['tinyld', 'yaml', 'web-tree-sitter', 'zod', '@energetic-ai', 'node-llama-cpp'];

/** The node_modules packages loaded after `script` ran (a CommonJS snippet with `root` defined). */
function packagesLoadedBy(script: string): string[] {
  const program = [
    `const root = ${JSON.stringify(packageRoot())};`,
    "require('tsx/cjs/api').register();",
    "process.on('exit', () => {",
    '  const names = new Set();',
    '  for (const file of Object.keys(require.cache)) {',
    "    const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(file.slice(file.lastIndexOf('node_modules/')));",
    '    if (m) names.add(m[1]);',
    '  }',
    "  process.stderr.write('LOADED ' + JSON.stringify([...names]) + '\\n');",
    '});',
    script,
  ].join('\n');
  const result = spawnSync(process.execPath, ['-e', program], { encoding: 'utf8', timeout: 120_000, cwd: packageRoot() });
  if (result.status !== 0) throw new Error(`the script failed (exit ${result.status}): ${result.stderr}`);
  const line = result.stderr.split('\n').find((l) => l.startsWith('LOADED '));
  if (!line) throw new Error(`no module list (exit ${result.status}): ${result.stderr}`);
  return JSON.parse(line.slice('LOADED '.length)) as string[];
}

const heavyIn = (loaded: string[]) => loaded.filter((name) => HEAVY.some((h) => name === h || name.startsWith(`${h}/`)));

describe('CLI start-up loads only what the command uses', () => {
  it('`cra --version` loads commander and none of the engine packages', () => {
    const loaded = packagesLoadedBy("require(root + '/src/hosts/cli/main.ts').main(['node', 'cra', '--version']);");
    expect(loaded).toContain('commander');
    expect(heavyIn(loaded)).toEqual([]);
    expect(loaded).not.toContain('better-sqlite3');
  }, 120_000);

  it('loading the engine (what search and chat do before their work) leaves language detection, YAML, tree-sitter and the models unloaded', () => {
    const loaded = packagesLoadedBy("require(root + '/src/core/app/createCore.ts');");
    expect(loaded).toContain('better-sqlite3');
    expect(heavyIn(loaded).filter((name) => name !== 'zod')).toEqual([]);
  }, 120_000);

  it('a keyword search through the repository reader (search, chat) leaves sqlite-vec unloaded', async () => {
    const { curatedFile } = await makeIndexedRepo({ 'a.py': 'def alpha():\n    return 1\n' });
    const loaded = packagesLoadedBy(
      [
        "const { KbReaders } = require(root + '/src/core/knowledge/kb/readers.ts');",
        "const { searchWithMode } = require(root + '/src/core/knowledge/search/search.ts');",
        'const readers = new KbReaders();',
        `const lease = readers.lease('r', ${JSON.stringify(curatedFile)});`,
        "searchWithMode(lease.kb, 'alpha', { mode: 'keyword' }).then((outcome) => {",
        "  if (outcome.results[0]?.path !== 'a.py') throw new Error('alpha not found');",
        '  lease.release();',
        '  readers.closeAll();',
        '});',
      ].join('\n'),
    );
    expect(loaded).toContain('better-sqlite3');
    expect(loaded).not.toContain('sqlite-vec');
  }, 120_000);

  it("an engine that has answered config and repository requests, and a keyword search, has loaded none of chat's, solve's, evaluation's or training's modules; a request of one loads it", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cra-startup-'));
    try {
      const { curatedFile } = await makeIndexedRepo({ 'a.py': 'def alpha():\n    return 1\n' });
      const script = [
        `const root = ${JSON.stringify(packageRoot())};`,
        "require('tsx/cjs/api').register();",
        "const ours = () => Object.keys(require.cache).filter((f) => /src\\/core\\/(lab|features\\/(chat|plans|retrieval))\\//.test(f)).map((f) => f.slice(f.indexOf('src/')));",
        "const { createCore } = require(root + '/src/core/app/createCore.ts');",
        "const { KbReaders } = require(root + '/src/core/knowledge/kb/readers.ts');",
        "const { searchWithMode } = require(root + '/src/core/knowledge/search/search.ts');",
        `const core = createCore({ host: 'cli', dataDir: ${JSON.stringify(dataDir)} }, { watch: false, recoverStatuses: false });`,
        'const readers = new KbReaders();',
        '(async () => {',
        "  await core.handlers['config/get']({});",
        "  await core.handlers['repos/list']({});",
        `  await searchWithMode(readers.get('r', ${JSON.stringify(curatedFile)}), 'alpha', { mode: 'keyword' });`,
        "  process.stderr.write('BEFORE ' + JSON.stringify(ours()) + '\\n');",
        "  await core.handlers['eval/list']({});",
        "  process.stderr.write('AFTER ' + JSON.stringify(ours()) + '\\n');",
        '  readers.closeAll();',
        '  await core.dispose();',
        '})();',
      ].join('\n');
      const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 120_000, cwd: packageRoot() });
      expect(result.status, result.stderr).toBe(0);
      const list = (name: string) => JSON.parse(result.stderr.split('\n').find((l) => l.startsWith(`${name} `))!.slice(name.length + 1)) as string[];
      expect(list('BEFORE')).toEqual([]);
      expect(list('AFTER')).toContain('src/core/lab/eval/evaluate.ts');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('language detection and the extractor still load their packages when used', () => {
    const loaded = packagesLoadedBy(
      [
        "const { detectLanguage } = require(root + '/src/core/features/chat/language.ts');",
        "if (detectLanguage('Pourquoi la recherche est-elle si lente quand le dépôt contient beaucoup de fichiers ?').language !== 'fr') throw new Error('not French');",
        "require(root + '/src/core/knowledge/indexer/extract/extractor.ts').createExtractor().then((e) => e.dispose());",
      ].join('\n'),
    );
    expect(loaded).toEqual(expect.arrayContaining(['tinyld', 'web-tree-sitter']));
  }, 120_000);
});
