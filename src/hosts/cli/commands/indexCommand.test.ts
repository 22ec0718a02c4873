import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { packageRoot } from '../../../core/platform/paths';
import { createTestRepo } from '../../../core/testing/gitRepo';
import { writeSample } from '../../../core/testing/sampleRepo';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

function cra(dataDir: string, ...args: string[]) {
  return spawnSync(process.execPath, [join(packageRoot(), 'bin', 'cra.js'), '--data-dir', dataDir, ...args], { encoding: 'utf8', timeout: 120_000 });
}

describe('cra index', () => {
  it('prints one JSON summary, then re-indexes incrementally', () => {
    const repo = createTestRepo();
    const dataDir = mkdtempSync(join(tmpdir(), 'cra-cli-'));
    cleanups.push(() => repo.cleanup(), () => rmSync(dataDir, { recursive: true, force: true }));
    writeSample(repo);

    const first = cra(dataDir, 'index', repo.root, '--json');
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    const summary = JSON.parse(first.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({ files: 9, commits: 3, coChangePairs: expect.any(Number), parsed: 9 }); // 3 of the 12 files are skipped, not parsed
    expect(Object.keys(summary)).toEqual(expect.arrayContaining(['files', 'symbols', 'references', 'dependencies', 'commits', 'coChangePairs', 'chunks', 'durationMs', 'skipped']));
    expect(summary.skipped).toEqual([
      { path: 'assets/logo.bin', reason: 'binary' },
      { path: 'big.txt', reason: 'oversize' },
      { path: 'vendor/lib.min.js', reason: 'minified' },
    ]);
    expect(first.stdout.trim().split('\n')).toHaveLength(1);
    const phases = summary.phaseMs as Record<string, number>;
    expect(Object.keys(phases)).toEqual(['scanning', 'parsing', 'references', 'git history', 'search index', 'saving']);
    for (const ms of Object.values(phases)) expect(ms).toBeGreaterThanOrEqual(0);
    // Each phase is rounded to whole ms on its own: the sum may pass the total by that rounding.
    expect(Object.values(phases).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual((summary.durationMs as number) + Object.keys(phases).length);

    const second = cra(dataDir, 'index', repo.root, '-v');
    expect(second.status).toBe(0);
    expect(second.stdout).toMatch(/^Indexed repo in .* s: 9 files \(0 parsed, 0 removed\)/);
    // A no-op run parses nothing: no parsing or references phase.
    expect(second.stdout).toMatch(/^Time: scanning \d+ ms · git history \d+ ms · search index \d+ ms · saving \d+ ms$/m);
    // Not a terminal: progress comes as plain lines, never carriage returns.
    expect(second.stderr).toContain('scanning');
    expect(second.stderr).not.toContain('\r');
    // Our state lives in the data folder; the repository gains nothing.
    expect(repo.git('status', '--porcelain')).toBe('');
    expect(readdirSync(join(dataDir, 'repos'))).toHaveLength(1);
  });

  it('exits non-zero with a one-line error for a bad path and writes no state', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cra-cli-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const result = cra(dataDir, 'index', join(dataDir, 'does-not-exist'), '--json');
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^cra: error: No folder at .*does-not-exist/)]);
    expect(existsSync(join(dataDir, 'repos'))).toBe(false);
  });
});
