import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { packageRoot } from '../../../core/platform/paths';
import { createTestRepo } from '../../../core/testing/gitRepo';
import { writeSample } from '../../../core/testing/sampleRepo';
import { formatTable } from './searchOutput';

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

    // An unknown mode: the contract's refusal, naming the modes (the command keeps no list of its own).
    const unknown = cra(dataDir, 'search', 'parse', '--repo', repo.root, '--mode', 'fuzzy');
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toBe('cra: error: Invalid input for search/query: mode: "fuzzy" is not a search mode; use one of auto, keyword, semantic, hybrid.\n');
  });

  it('run from a subfolder of an indexed repository searches that repository, not "index the subfolder"', () => {
    const repo = createTestRepo();
    const dataDir = mkdtempSync(join(tmpdir(), 'cra-cli-search-'));
    cleanups.push(() => repo.cleanup(), () => rmSync(dataDir, { recursive: true, force: true }));
    writeSample(repo);
    expect(cra(dataDir, 'index', repo.root, '--json').status).toBe(0);
    const sub = join(repo.root, 'pkg', 'deeper');
    mkdirSync(sub);
    const fromHere = spawnSync(process.execPath, [join(packageRoot(), 'bin', 'cra.js'), '--data-dir', dataDir, 'search', 'helper'], { encoding: 'utf8', timeout: 120_000, cwd: sub });
    expect(fromHere.stderr).toBe('');
    expect(fromHere.status).toBe(0);
    expect(fromHere.stdout).toMatch(/^ {2}1 {2}pkg\/util\.py:4 /);
    const bySubfolder = cra(dataDir, 'search', 'helper', '--repo', join(repo.root, 'pkg'));
    expect(bySubfolder.stderr).toBe('');
    expect(bySubfolder.stdout).toMatch(/^ {2}1 {2}pkg\/util\.py:4 /);
  });
});


describe('cra search listing', () => {
  it('shows path:best line and words the reasons from their kinds', () => {
    const text = formatTable(
      [
        {
          path: 'shop/users.py',
          score: 1,
          symbols: [{ name: 'UserRepository.get_user_by_id', kind: 'method', startLine: 7, endLine: 9 }],
          lines: [],
          bestLine: 7,
          why: [
            { kind: 'definition', detail: { symbol: 'get_user_by_id' } },
            { kind: 'text-match', detail: { score: 1 } },
          ],
        },
        { path: 'shop/pdf.py', score: 0.25, symbols: [], lines: [], bestLine: null, why: [{ kind: 'imported-by', detail: { path: 'shop/users.py' } }] },
      ],
      '2 files',
    );
    expect(text).toContain('  1  shop/users.py:7  1.000\n     UserRepository.get_user_by_id 7-9  · defines get_user_by_id; text match\n');
    expect(text).toContain('  2  shop/pdf.py      0.250\n     imported by shop/users.py\n');
    expect(text).not.toContain('[object Object]');
  });
});
