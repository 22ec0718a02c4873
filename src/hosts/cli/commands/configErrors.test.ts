import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { packageRoot } from '../../../core/platform/paths';

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'cra-cli-config-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

function cra(env: NodeJS.ProcessEnv, ...args: string[]) {
  const { OLLAMA_HOST: _unset, ...rest } = process.env;
  return spawnSync(process.execPath, [join(packageRoot(), 'bin', 'cra.js'), '--data-dir', dataDir, ...args], { encoding: 'utf8', timeout: 120_000, env: { ...rest, ...env } });
}

describe('commands that need the config fail naming file:line and key', () => {
  it('cra models list with an unclosed [models header says where, not "Ollama is not installed"', () => {
    const file = join(dataDir, 'config.toml');
    writeFileSync(file, '[models\ncoding = "qwen3:4b"\n');
    const out = cra({ PATH: '/usr/bin:/bin' }, 'models', 'list');
    expect(out.status).toBe(1);
    expect(out.stderr).toContain(`cra: error: ${file}:1:`);
    expect(out.stderr).toContain('line 1 reads `[models`');
    expect(out.stderr).not.toContain('not installed');
  });

  it('cra search with top_k = "twenty" says which key and what is allowed instead of falling back', () => {
    const file = join(dataDir, 'config.toml');
    writeFileSync(file, '[retrieval]\ntop_k = "twenty"\n');
    const out = cra({}, 'search', 'anything', '--repo', dataDir);
    expect(out.status).toBe(1);
    expect(out.stderr.trim()).toBe(`cra: error: ${file}:2: [retrieval].top_k = "twenty" is not allowed: must be a whole number from 1 to 200. Fix it in the file or on the Settings page.`);
  });

  it('cra models list with OLLAMA_HOST at a closed port names the address', () => {
    const out = cra({ OLLAMA_HOST: 'http://127.0.0.1:9', PATH: '/usr/bin:/bin' }, 'models', 'list');
    expect(out.status).toBe(1);
    expect(out.stderr).toContain('No model server answers at http://127.0.0.1:9 (set by OLLAMA_HOST)');
  });
});
