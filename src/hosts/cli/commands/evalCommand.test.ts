import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureRepo } from '../../../core/eval/fixtureRepo';
import { packageRoot } from '../../../core/paths';

let root: string;
let repo: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'cra-cli-eval-'));
  repo = buildFixtureRepo(join(root, 'repo'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function cra(...args: string[]) {
  return spawnSync(process.execPath, [join(packageRoot(), 'bin', 'cra.js'), '--data-dir', join(root, 'data'), 'eval', repo, ...args], {
    encoding: 'utf8',
    timeout: 120_000,
  });
}

describe('cra eval --mode', () => {
  it('measures the semantic search under its own method name, with the embedding time', () => {
    const out = join(root, 'report.json');
    const run = cra('--commits', '2', '--mode', 'semantic', '--json', '--out', out);
    expect(run.status, run.stderr).toBe(0);
    const report = JSON.parse(readFileSync(out, 'utf8')) as { methods: string[]; timing: { embedMsMean?: number } };
    expect(report.methods).toEqual(['search-semantic', 'search-semantic-source', 'bm25', 'bm25-source']);
    expect(report.timing.embedMsMean).toBeGreaterThanOrEqual(0);
  }, 120_000);

  it('refuses an unknown mode, naming the choices', () => {
    const run = cra('--mode', 'fuzzy');
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/'fuzzy' is invalid.*keyword, hybrid, semantic/s);
  });
});
