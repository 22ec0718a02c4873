import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EnrichSummary } from '../../../shared/contract';
import { KnowledgeBase } from '../../../core/knowledge/kb/knowledgeBase';
import { openRawDatabase } from '../../../core/platform/db/raw';
import { RepoRegistry } from '../../../core/knowledge/repos/registry';
import { useCliModelRepo } from '../testing/modelRepo';
import { runCra } from '../testing/cra';
import { repoPaths } from '../../../core/platform/layout';

const fx = useCliModelRepo({
  prefix: 'cra-cli-enrich-',
  models: ['qwen3:1.7b'],
  // The enrich stage has its own model; reasoning would be the fallback.
  config: () => '[models]\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\n\n[models.overrides]\nenrich = "qwen3:1.7b"\n',
});

beforeAll(() => {
  fx.server.script.respond = (prompt) => {
    const path = /^File: (.+)$/m.exec(prompt)?.[1] ?? '?';
    // JSON with trailing prose, as small models answer.
    return { text: `${JSON.stringify({ purpose: `The ${path} file.`, domain: path.includes('mail') ? 'email' : 'settings', module: path, concepts: ['configuration'] })}\nLet me know if you need more.` };
  };
});

describe('cra enrich', () => {
  it('describes every file with the enrich model, resumes, and promotes only with --promote', async () => {
    const first = await runCra(fx.dataDir, ['enrich', fx.repo.root], { OLLAMA_HOST: fx.server.url });
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/^Described 4 file\(s\) with qwen3:1\.7b; 0 already done; 0 failed/);
    expect(first.stdout).toContain('Not promoted: run with --promote');
    expect(first.stderr).toMatch(/\[4\/4\] /);
    const registry = new RepoRegistry(fx.dataDir);
    const id = registry.list()[0]!.id;
    registry.close();
    const raw = openRawDatabase(repoPaths(fx.dataDir, id).raw);
    try {
      expect(raw.prepare("select count(*) from task_runs where mode = 'enrich'").pluck().get()).toBe(1);
      expect(raw.prepare("select distinct model from model_calls where stage = 'enrich'").pluck().all()).toEqual(['qwen3:1.7b']);
    } finally {
      raw.close();
    }
    const kb = KnowledgeBase.open(repoPaths(fx.dataDir, id).curated, id);
    try {
      expect(kb.searchFileMetadata(['email'])).toEqual([]);
    } finally {
      kb.close();
    }

    const calls = fx.server.requests.length;
    const second = await runCra(fx.dataDir, ['enrich', fx.repo.root, '--promote', '--json'], { OLLAMA_HOST: fx.server.url });
    expect(second.status).toBe(0);
    const summary = JSON.parse(second.stdout) as EnrichSummary;
    expect(summary).toMatchObject({ files: 4, enriched: 0, alreadyDone: 4, failed: 0, promoted: 4 });
    expect(fx.server.requests.length).toBe(calls);
    const after = KnowledgeBase.open(repoPaths(fx.dataDir, id).curated, id);
    try {
      expect(after.searchFileMetadata(['email']).map((m) => m.path)).toEqual(['mailer.py']);
    } finally {
      after.close();
    }
  });

  it('refuses a folder that is not indexed, naming cra index', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'cra-cli-enrich-none-'));
    try {
      const notIndexed = await runCra(fx.dataDir, ['enrich', empty], { OLLAMA_HOST: fx.server.url });
      expect(notIndexed.status).not.toBe(0);
      expect(notIndexed.stderr).toMatch(/cra index/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
