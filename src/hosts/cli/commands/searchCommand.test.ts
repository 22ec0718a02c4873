import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { packageRoot } from '../../../core/paths';
import { createTestRepo } from '../../../core/testing/gitRepo';
import { writeSample } from '../../../core/indexer/testing/sampleRepo';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

function cra(dataDir: string, ...args: string[]) {
  return spawnSync(process.execPath, [join(packageRoot(), 'bin', 'cra.js'), '--data-dir', dataDir, ...args], { encoding: 'utf8', timeout: 120_000 });
}

describe('cra search', () => {
  it('says on stderr that hybrid fell back to keyword without vectors; --json carries it as fields', () => {
    const repo = createTestRepo();
    const dataDir = mkdtempSync(join(tmpdir(), 'cra-cli-search-'));
    cleanups.push(() => repo.cleanup(), () => rmSync(dataDir, { recursive: true, force: true }));
    writeSample(repo);
    expect(cra(dataDir, 'index', repo.root, '--json').status).toBe(0);

    const human = cra(dataDir, 'search', 'parse', '--repo', repo.root, '--mode', 'hybrid');
    expect(human.status).toBe(0);
    expect(human.stdout).toMatch(/· keyword · /);
    expect(human.stdout).not.toMatch(/Note:/);
    expect(human.stderr).toMatch(/^Note: No vectors for this repository yet, so this is keyword search, not hybrid\. .*`cra embed`/m);

    const json = cra(dataDir, 'search', 'parse', '--repo', repo.root, '--mode', 'hybrid', '--json');
    expect(json.status).toBe(0);
    expect(json.stderr).toBe('');
    const response = JSON.parse(json.stdout) as { mode: string; vectorCoverage: { vectors: number; chunks: number }; note: string };
    expect(response.mode).toBe('keyword');
    expect(response.vectorCoverage.vectors).toBe(0);
    expect(response.vectorCoverage.chunks).toBeGreaterThan(0);
    expect(response.note).toMatch(/keyword search, not hybrid/);

    const keyword = cra(dataDir, 'search', 'parse', '--repo', repo.root, '--mode', 'keyword');
    expect(keyword.status).toBe(0);
    expect(keyword.stderr).toBe('');
  });
});
