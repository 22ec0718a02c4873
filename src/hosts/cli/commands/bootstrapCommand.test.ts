import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRawDatabase } from '../../../core/platform/db/raw';
import { buildFixtureRepo } from '../../../core/testing/fixtureRepo';
import { packageRoot } from '../../../core/platform/paths';

let root: string;
let repo: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'cra-cli-bootstrap-'));
  repo = buildFixtureRepo(join(root, 'repo'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const cra = (...args: string[]) =>
  spawnSync(process.execPath, [join(packageRoot(), 'bin', 'cra.js'), '--data-dir', join(root, 'data'), 'bootstrap', repo, ...args], { encoding: 'utf8', timeout: 120_000 });

describe('cra bootstrap', () => {
  it('writes the dataset as a bootstrap run, and a second run resumes with nothing left to add', () => {
    const out = join(root, 'ds');
    const first = cra('--commits', '2', '--out', out, '--json');
    expect(first.status, first.stderr).toBe(0);
    const summary = JSON.parse(first.stdout) as { added: number; skipped: number; mined: number; dir: string };
    expect(summary).toMatchObject({ added: 2, skipped: 0, mined: 2, dir: out });
    expect(first.stderr).toMatch(/\[0\/2\]/);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { commits: unknown[] };
    expect(manifest.commits).toHaveLength(2);
    const raw = openRawDatabase(join(root, 'data', 'raw.sqlite'));
    try {
      const runs = raw.prepare("select mode, status, result_json from task_runs where mode = 'bootstrap'").all() as Array<{ mode: string; status: string; result_json: string }>;
      expect(runs).toHaveLength(1);
      expect(runs[0]?.status).toBe('done');
      expect(JSON.parse(runs[0]!.result_json)).toMatchObject({ dir: out, added: 2 });
    } finally {
      raw.close();
    }
    const again = cra('--commits', '2', '--out', out);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/Commits: 0 added, 2 already there/);
    expect(again.stdout).toMatch(/scope\.jsonl: \d+ yes, \d+ no/);
  }, 120_000);

  it('refuses an --out folder that holds files but no dataset, truncating nothing; --force replaces the dataset files', () => {
    const out = join(root, 'not-a-dataset');
    mkdirSync(out);
    const mine = { 'scope.jsonl': 'mine 1\n', 'precision_pass1.jsonl': 'mine 2\n', 'execute.jsonl': 'mine 3\n' };
    for (const [name, text] of Object.entries(mine)) writeFileSync(join(out, name), text);
    const refused = cra('--commits', '1', '--out', out);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/not-a-dataset is not empty \(execute\.jsonl, precision_pass1\.jsonl, scope\.jsonl\) and holds no bootstrap dataset .*--force to replace/);
    for (const [name, text] of Object.entries(mine)) expect(readFileSync(join(out, name), 'utf8'), name).toBe(text);
    const forced = cra('--commits', '1', '--out', out, '--force', '--json');
    expect(forced.status, forced.stderr).toBe(0);
    expect(JSON.parse(forced.stdout)).toMatchObject({ added: 1, dir: out });
    expect(readFileSync(join(out, 'scope.jsonl'), 'utf8')).not.toContain('mine');
  }, 120_000);

  it('refuses a commit count that is not a whole number', () => {
    const run = cra('--commits', 'lots');
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/"lots" is not a commit count/);
  });
});
