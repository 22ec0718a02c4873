import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppError } from '../../../shared/contract';
import { curateData } from './curate';
import { LogSources } from './logSources';
import { loadTrainingPlan, saveTrainingPlan, type TrainingPlanArtifact } from './trainPlan';

/*
 * Plan files are named by a user or a request: a hostile one must not write outside the output
 * folder, a device or a FIFO must not be read, and no error may quote a file's content.
 */
let root: string;

const ARTIFACT: TrainingPlanArtifact = {
  version: 1,
  id: 'tp-20250101T000000-abc123',
  createdAt: '2025-01-01T00:00:00.000Z',
  model: 'qwen3:0.6b',
  attempts: 1,
  statistics: { generatedAt: '2025-01-01T00:00:00.000Z', log: { rawDatabases: 0, calls: 0, decisions: 0, runs: 0 }, datasets: [], stages: [], disagreement: [], weakest: [] },
  plan: {
    stage: 'scope',
    rationale: 'Scope has the most examples.',
    data: { sources: ['synthetic'], exclude_default_denied: true, exclude_failed_runs: true, balance_labels: true, max_examples: 100, test_fraction: 0.25, extra_stages: ['precision_pass1'] },
    hyperparameters: { method: 'lora', epochs: 1, learning_rate: 0.0001, batch_size: 4 },
    target: { metric: 'accuracy_on_test', current: null, goal: 0.9 },
  },
};

const planFile = (name: string, value: unknown) => {
  const file = join(root, name);
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
};
const errorOf = (fn: () => unknown): AppError => {
  try {
    fn();
  } catch (error) {
    return error as AppError;
  }
  throw new Error('expected an error');
};

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'cra-plan-file-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('a training plan file', () => {
  it('is read when it is one, and a plan whose stage is a path is refused field by field', () => {
    expect(loadTrainingPlan(planFile('good.json', ARTIFACT)).artifact).toEqual(ARTIFACT);
    const hostile = { ...ARTIFACT, plan: { ...ARTIFACT.plan, stage: '../../escaped', data: { ...ARTIFACT.plan.data, extra_stages: ['/tmp/x'] } } };
    const error = errorOf(() => loadTrainingPlan(planFile('hostile.json', hostile)));
    expect(error.code).toBe('VALIDATION');
    expect(error.message).toMatch(/plan\.stage: a stage name .*plan\.data\.extra_stages\.0: a stage name/);
    // An id is part of the default output folder's name: it is a plan id, not a path.
    expect(errorOf(() => loadTrainingPlan(planFile('id.json', { ...ARTIFACT, id: 'tp-../../x' }))).message).toMatch(/id: a plan id/);
    // Every field is checked: nothing unknown, in the plan or its statistics.
    expect(errorOf(() => loadTrainingPlan(planFile('extra.json', { ...ARTIFACT, statistics: { ...ARTIFACT.statistics, extra: 1 } }))).message).toMatch(/statistics: Unrecognized key/);
  });

  it('never makes curation write outside the output folder, whatever the plan says', () => {
    const dataDir = join(root, 'data-hostile');
    mkdirSync(dataDir);
    const sources = LogSources.open(dataDir);
    try {
      for (const stage of ['../../escaped', '/tmp/cra-escaped-abs', 'sub/../../../escaped2']) {
        const artifact = { ...ARTIFACT, plan: { ...ARTIFACT.plan, stage } } as TrainingPlanArtifact;
        // Two folders down: the old code's escapes (../../) land in a folder of this test, checked below.
        const out = join(root, 'nest', 'ed', `curated-${stage.length}`);
        const error = errorOf(() => curateData({ dataDir, plan: { artifact, sha256: 'x', file: 'p.json' }, sources, datasets: [], out }));
        expect(error.message).toMatch(/is not a stage name/);
        expect(existsSync(out)).toBe(false);
      }
      const idArtifact = { ...ARTIFACT, id: '../../../escaped-id' } as TrainingPlanArtifact;
      expect(errorOf(() => curateData({ dataDir, plan: { artifact: idArtifact, sha256: 'x', file: 'p.json' }, sources, datasets: [] })).message).toMatch(/leads outside the repository/);
    } finally {
      sources.close();
    }
    expect(existsSync(join(root, 'nest'))).toBe(false);
    expect(readdirSync(root).filter((f) => f.includes('escaped'))).toEqual([]);
    expect(readdirSync(dataDir)).toEqual(['datasets']);
    expect(readdirSync(join(dataDir, 'datasets'))).toEqual([]);
  });

  it('refuses a device, a FIFO, a folder and a file over 1 MiB, without reading them', () => {
    const zero = errorOf(() => loadTrainingPlan('/dev/zero'));
    expect(zero.code).toBe('VALIDATION');
    expect(zero.message).toMatch(/"\/dev\/zero" is a character device, not a file; give the file cra train-plan wrote/);
    expect(errorOf(() => loadTrainingPlan(root)).message).toMatch(/is a folder, not a file/);
    const big = planFile('big.json', `${JSON.stringify(ARTIFACT)}${' '.repeat(1024 * 1024)}`);
    expect(errorOf(() => loadTrainingPlan(big)).message).toMatch(/is 1\.0 MiB; a training plan is at most 1\.0 MiB/);

    // A FIFO with a writer waiting: read, it would give a valid plan; it is refused unread.
    const fifo = join(root, 'plan.fifo');
    execFileSync('mkfifo', [fifo]);
    const writer = spawn('sh', ['-c', 'printf %s "$1" > "$2"', 'sh', JSON.stringify(ARTIFACT), fifo], { stdio: 'ignore' });
    try {
      const error = errorOf(() => loadTrainingPlan(fifo));
      expect(error.code).toBe('VALIDATION');
      expect(error.message).toMatch(/plan\.fifo" is a named pipe \(FIFO\), not a file/);
    } finally {
      writer.kill('SIGKILL');
    }
  });

  it('names what is wrong without quoting the content of a file that is not a plan', () => {
    const secret = 'SECRET-9f2c-token';
    for (const [name, text] of [
      ['notes.txt', `${secret}=hunter2\nmore\n`],
      ['keys.json', JSON.stringify({ [secret]: 'x', api: secret })],
      ['array.json', JSON.stringify([secret])],
    ] as const) {
      const error = errorOf(() => loadTrainingPlan(planFile(name, text)));
      expect(error.code, name).toBe('VALIDATION');
      expect(error.message, name).toMatch(/is not (JSON, so it is not )?a training plan/);
      expect(error.message, name).not.toContain('SECRET');
      expect(error.message, name).not.toContain('hunter2');
    }
  });
});

describe('saving a training plan', () => {
  it('refuses to replace an existing file unless forced, and replaces it whole when forced', () => {
    const file = planFile('mine.json', 'my own notes\n');
    const error = errorOf(() => saveTrainingPlan(ARTIFACT, file));
    expect(error.message).toMatch(/mine\.json already exists; give another --out file, or --force to replace it/);
    expect(readFileSync(file, 'utf8')).toBe('my own notes\n');
    expect(saveTrainingPlan(ARTIFACT, file, { force: true })).toBe(file);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(ARTIFACT);
    const fresh = join(root, 'plans', 'new.json');
    saveTrainingPlan(ARTIFACT, fresh);
    expect(loadTrainingPlan(fresh).artifact).toEqual(ARTIFACT);
    expect(readdirSync(join(root, 'plans'))).toEqual(['new.json']);
  });
});
