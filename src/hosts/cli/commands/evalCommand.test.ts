import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureRepo } from '../../../core/testing/fixtureRepo';
import { packageRoot } from '../../../core/platform/paths';

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
    expect(report.methods).toEqual(['search-semantic', 'search-semantic-source', 'search-functions', 'bm25', 'bm25-source', 'bm25-standard']);
    expect(report.timing.embedMsMean).toBeGreaterThanOrEqual(0);
  }, 120_000);

  it('refuses an unknown mode, naming the choices', () => {
    const run = cra('--mode', 'fuzzy');
    expect(run.status).toBe(1);
    // The contract's refusal (eval/start's mode is an enum), not a second check in the command.
    expect(run.stderr).toContain('cra: error: Invalid input for eval/start: mode: "fuzzy" is not a search mode; use one of keyword, hybrid, semantic.');
  });
});

describe('cra eval --pipeline', () => {
  it('prints the pipeline figures of each task with the oracle judge and the budget given', () => {
    const run = cra('--commits', '2', '--pipeline', '--judge', 'oracle', '--context-window', '16384', '--reserved-tokens', '2048', '--max-candidates', '20');
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Pipeline \(oracle judge, budget 14336 tokens\) over 2 task\(s\): candidate recall \d\.\d{3}, package recall \d\.\d{3} \(functions \d\.\d{3}\), judgments median/);
    expect(run.stdout).toMatch(/task {10}gold {2}cand {2}candR/);
  }, 120_000);

  it('refuses an unknown judge and a budget that leaves nothing, with the reason', () => {
    const judge = cra('--pipeline', '--judge', 'maybe');
    expect(judge.status).toBe(1);
    expect(judge.stderr).toContain('cra: error: Invalid input for eval/start: pipeline.judge: "maybe" is not a judge; use one of yes, oracle, model.');
    const budget = cra('--pipeline', '--judge', 'yes', '--context-window', '1000', '--reserved-tokens', '1000');
    expect(budget.status).not.toBe(0);
    expect(budget.stderr).toMatch(/reserved tokens \(1000\) must be fewer than the context window \(1000\)/);
  });

  it('asks for models with the model judge when none are configured', () => {
    const run = cra('--pipeline', '--judge', 'model');
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/cra init/);
  });
});

describe('cra eval --chat-evidence', () => {
  it('prints the chat evidence figures beside the search recall, with the route taken from --mode', () => {
    const out = join(root, 'chat-report.json');
    const run = cra('--commits', '2', '--chat-evidence', '--out', out);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Chat evidence \(route bm25, pipeline "default", budget 4000 tokens\) over 2 task\(s\): all gold in the evidence \d\.\d{3} \(raw within the budget, without condensing: \d\.\d{3}\), gold fraction \d\.\d{3}.*; search R@10 \d\.\d{3}/);
    expect(run.stdout).toMatch(/task {10}gold {3}all {2}goldF/);
    const report = JSON.parse(readFileSync(out, 'utf8')) as { chatEvidence: { tasks: number; mode: string }; tasks: Array<{ chatEvidence?: { mode: string } }> };
    expect(report.chatEvidence).toMatchObject({ tasks: 2, mode: 'bm25' });
    expect(report.tasks.map((t) => t.chatEvidence?.mode)).toEqual(['BM25', 'BM25']);
  }, 120_000);
});
