import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRawDatabase } from '../../../core/platform/db/raw';
import { chatLineSchema } from '../../../core/lab/training/dataset';
import { buildShopRepo } from '../../../core/testing/bootstrapFixture';
import type { CuratedManifest, TrainingPlan, TrainingPlanArtifact } from '../../../shared/contract';
import { OllamaTestServer } from '../../../core/testing/ollamaTestServer';
import { runCra } from '../testing/cra';

let server: OllamaTestServer;
let root: string;
let dataDir: string;

const PLAN: TrainingPlan = {
  stage: 'scope',
  rationale: 'Only synthetic data so far; scope has the most examples.',
  data: { sources: ['synthetic'], exclude_default_denied: true, exclude_failed_runs: true, balance_labels: true, max_examples: 500, test_fraction: 0.34, extra_stages: ['precision_pass1'] },
  hyperparameters: { method: 'lora', epochs: 2, learning_rate: 0.0001, batch_size: 4, lora_rank: 8 },
  target: { metric: 'accuracy_on_test', current: null, goal: 0.9 },
};

beforeAll(async () => {
  server = await OllamaTestServer.start();
  server.install('qwen3:0.6b');
  root = mkdtempSync(join(tmpdir(), 'cra-cli-training-'));
  dataDir = join(root, 'data');
}, 60_000);
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

describe('cra train-plan and cra curate-data', () => {
  it('refuse an empty data folder, naming what produces data', async () => {
    const empty = join(root, 'empty');
    const run = await runCra(empty, ['train-plan']);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/No training data in .*run tasks first .*cra bootstrap <repo>/);
    const curate = await runCra(empty, ['curate-data', '--training-plan', join(root, 'missing.json')]);
    expect(curate.status).not.toBe(0);
    expect(curate.stderr).toMatch(/No training plan at .*missing\.json; run cra train-plan/);
  }, 60_000);

  it('train-plan refuses an --out file that exists before asking the model, leaving it as it was', async () => {
    const mine = join(root, 'my-plan.json');
    writeFileSync(mine, 'my notes\n');
    const run = await runCra(join(root, 'empty'), ['train-plan', '--out', mine]);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/my-plan\.json already exists; give another --out file, or --force to replace it/);
    expect(readFileSync(mine, 'utf8')).toBe('my notes\n');
  }, 60_000);

  it('bootstrap → train-plan (the model writes the plan) → curate-data writes per-stage JSONL and a manifest', async () => {
    const repo = buildShopRepo(join(root, 'shop'));
    const boot = await runCra(dataDir, ['bootstrap', repo, '--json']);
    expect(boot.status, boot.stderr).toBe(0);
    writeFileSync(join(dataDir, 'config.toml'), `[models]\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\nbase_url = "${server.url}"\n`);
    server.script.chat.push({ json: PLAN });
    const planned = await runCra(dataDir, ['train-plan']);
    expect(planned.status, planned.stderr).toBe(0);
    expect(planned.stdout).toContain('Stage: scope (also precision_pass1)');
    expect(planned.stdout).toContain('Training: lora, 2 epochs, learning rate 0.0001, batch 4, rank 8');
    const file = /Saved: (\S+)/.exec(planned.stdout)![1]!;
    const artifact = JSON.parse(readFileSync(file, 'utf8')) as TrainingPlanArtifact;
    expect(artifact.plan).toEqual(PLAN);
    expect(artifact.statistics.stages.find((s) => s.stage === 'scope')?.synthetic).toEqual({ examples: 17, yes: 5, no: 12 });

    const out = join(root, 'curated');
    const curated = await runCra(dataDir, ['curate-data', '--training-plan', file, '--out', out]);
    expect(curated.status, curated.stderr).toBe(0);
    expect(curated.stdout).toMatch(/scope: train \d+ \(\d+ yes, \d+ no; \d+ tasks\), test \d+ \(1 tasks\)/);
    expect(curated.stdout).toContain('dpo.jsonl: none (the log holds no plan adjustments)');
    const manifest = JSON.parse(readFileSync(join(out, 'curated.json'), 'utf8')) as CuratedManifest;
    expect(manifest.plan.file).toBe(file);
    expect(readdirSync(out).sort()).toEqual(['curated.json', 'precision_pass1.test.jsonl', 'precision_pass1.train.jsonl', 'scope.test.jsonl', 'scope.train.jsonl', 'training-plan.json']);
    const s = manifest.stages.scope!;
    expect(s.train.yes + s.test.yes).toBe(5);
    expect(s.train.no + s.test.no).toBe(5);
    for (const line of readFileSync(join(out, 'scope.train.jsonl'), 'utf8').split('\n').filter(Boolean)) expect(chatLineSchema.safeParse(JSON.parse(line)).success).toBe(true);
    // The plan's model call is in the log, in the train-plan run, as every call is.
    const raw = openRawDatabase(join(dataDir, 'raw.sqlite'));
    try {
      expect(raw.prepare(`select count(*) as n from model_calls c join task_runs r on r.id = c.run_id where c.stage = 'train_plan' and r.mode = 'train-plan'`).get()).toEqual({ n: 1 });
    } finally {
      raw.close();
    }
    // Never over an existing folder.
    const again = await runCra(dataDir, ['curate-data', '--training-plan', file, '--out', out]);
    expect(again.status).not.toBe(0);
    expect(again.stderr).toMatch(/already exists; give another --out folder/);
  }, 180_000);
});
