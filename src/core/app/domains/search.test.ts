import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestRepo } from '../../testing/gitRepo';
import { createTempCore } from '../../testing/tempCore';

describe('search domain', () => {
  const { core, cleanup } = createTempCore();
  afterAll(cleanup);

  it('searches a repository added through the engine, then embeds it as a run with progress', async () => {
    const { root } = createTestRepo({ prefix: 'cra-search-domain-' });
    writeFileSync(join(root, 'mailer.py'), 'def send_mail(to, body):\n    """Deliver a message over SMTP."""\n    return to, body\n');
    const { repo, runId } = await core.handlers['repos/add']({ path: root });
    await core.runs.wait(runId);

    const keyword = await core.handlers['search/query']({ repoId: repo.id, query: 'send mail', limit: 5, mode: 'auto' });
    expect(keyword.mode).toBe('keyword');
    expect(keyword.results[0]).toMatchObject({ path: 'mailer.py', symbols: [{ name: 'send_mail', kind: 'function', startLine: 1, endLine: 3 }] });
    expect(keyword.tookMs).toBeGreaterThanOrEqual(0);

    const phases: string[] = [];
    const stop = core.events.on('run/progress', (p) => p.kind === 'embed' && phases.push(p.phase));
    const embed = await core.handlers['search/embed']({ repoId: repo.id });
    await core.runs.wait(embed.runId);
    stop();
    expect(phases).toContain('embeddings');
    const status = await core.handlers['search/status']({ repoId: repo.id });
    expect(status.embedders).toEqual([expect.objectContaining({ embedderId: 'use-lite', dimensions: 512, vectors: status.chunks })]);

    const auto = await core.handlers['search/query']({ repoId: repo.id, query: 'deliver a message', limit: 5, mode: 'auto' });
    expect(auto.mode).toBe('keyword');
    const hybrid = await core.handlers['search/query']({ repoId: repo.id, query: 'deliver a message', limit: 5, mode: 'hybrid' });
    expect(hybrid.mode).toBe('hybrid');
    expect(hybrid.results[0]!.path).toBe('mailer.py');
  });

  it('lists [retrieval] top_k files when a request names no limit', async () => {
    const { root } = createTestRepo({ prefix: 'cra-search-topk-' });
    for (const name of ['alpha', 'beta', 'gamma']) writeFileSync(join(root, `${name}.py`), `def parse_${name}(text):\n    return text\n`);
    const { repo, runId } = await core.handlers['repos/add']({ path: root });
    await core.runs.wait(runId);
    const all = await core.handlers['search/query']({ repoId: repo.id, query: 'parse text', mode: 'keyword' });
    expect(all.results).toHaveLength(3);
    writeFileSync(join(core.context.ports.dataDir, 'config.toml'), '[retrieval]\ntop_k = 2\n');
    const capped = await core.handlers['search/query']({ repoId: repo.id, query: 'parse text', mode: 'keyword' });
    expect(capped.results).toHaveLength(2);
    const explicit = await core.handlers['search/query']({ repoId: repo.id, query: 'parse text', limit: 1, mode: 'keyword' });
    expect(explicit.results).toHaveLength(1);
  });

  it('answers NOT_FOUND for an unknown repository', async () => {
    await expect(core.handlers['search/query']({ repoId: 'nope', query: 'x', limit: 5, mode: 'auto' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
