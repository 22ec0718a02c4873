import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { HostKind } from '../../../shared/contract';
import { createCore, type Core } from '../createCore';
import { createTestRepo } from '../../testing/gitRepo';

/** A small committed git repository of Python files. */
function gitRepo(): string {
  const repo = createTestRepo({ prefix: 'cra-embed-auto-' });
  repo.write('mailer.py', 'def send_mail(to, body):\n    """Deliver a message over SMTP."""\n    return to, body\n');
  repo.write('shapes.py', 'class Circle:\n    def area(self):\n        """Surface of the circle."""\n        return 3.14 * self.r ** 2\n');
  repo.commit('initial');
  return repo.root;
}

describe('automatic embedding after an index', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const fn of cleanups.splice(0).reverse()) await fn();
  });

  function engine(host: HostKind, env?: string, dataDir = mkdtempSync(join(tmpdir(), 'cra-embed-core-'))): Core {
    const previous = process.env.CRA_EMBEDDINGS;
    if (env === undefined) delete process.env.CRA_EMBEDDINGS;
    else process.env.CRA_EMBEDDINGS = env;
    const core = createCore({ host, dataDir });
    // The switch is read at each decision, so the variable stays as a process would keep it until the test ends.
    cleanups.push(() => {
      if (previous === undefined) delete process.env.CRA_EMBEDDINGS;
      else process.env.CRA_EMBEDDINGS = previous;
    });
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    cleanups.push(() => core.dispose());
    return core;
  }

  it("embeds a repository added in a 'serve' engine without being asked once embeddings are on, after it is usable", async () => {
    const core = engine('serve', '1');
    const order: string[] = [];
    core.events.on('repos/changed', (r) => r.status === 'ready' && order.push('ready'));
    core.events.on('run/started', (r) => order.push(`started ${r.kind}`));
    const embedded = new Promise<string>((resolve) => core.events.on('run/finished', (r) => r.kind === 'embed' && resolve(r.status)));
    const { repo, runId } = await core.handlers['repos/add']({ path: gitRepo() });
    await core.runs.wait(runId);
    expect(await embedded).toBe('done');
    expect(order).toEqual(['started index', 'ready', 'started embed']);
    const status = await core.handlers['search/status']({ repoId: repo.id });
    expect(status.chunks).toBeGreaterThan(0);
    expect(status.embedders).toEqual([expect.objectContaining({ embedderId: 'use-lite', vectors: status.chunks })]);
    const hybrid = await core.handlers['search/query']({ repoId: repo.id, query: 'deliver a message', limit: 5, mode: 'hybrid' });
    expect(hybrid.mode).toBe('hybrid');
    const auto = await core.handlers['search/query']({ repoId: repo.id, query: 'deliver a message', limit: 5, mode: 'auto' });
    expect(auto.mode).toBe('keyword');
    // `[retrieval] mode` decides what `auto` means.
    writeFileSync(join(core.context.ports.dataDir, 'config.toml'), '[retrieval]\nmode = "hybrid"\n');
    const configured = await core.handlers['search/query']({ repoId: repo.id, query: 'deliver a message', limit: 5, mode: 'auto' });
    expect(configured.mode).toBe('hybrid');
  });

  it("does not embed by itself in a 'cli' engine, nor in 'serve' by default or with CRA_EMBEDDINGS=0", async () => {
    // One engine after the other: each sees its own CRA_EMBEDDINGS while it decides.
    for (const [host, env] of [['cli'], ['serve'], ['serve', '0']] as Array<[HostKind, string?]>) {
      const core = engine(host, env);
      const { repo, runId } = await core.handlers['repos/add']({ path: gitRepo() });
      await core.runs.wait(runId);
      // The app hosts start embedding on the next timer tick after the ready event; give it ample time.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(core.runs.list().filter((r) => r.kind === 'embed')).toEqual([]);
      expect((await core.handlers['search/status']({ repoId: repo.id })).embedders).toEqual([]);
    }
  });

  it("resumes a repository without vectors a few seconds after a 'serve' engine starts", async () => {
    const cli = engine('cli');
    const { repo, runId } = await cli.handlers['repos/add']({ path: gitRepo() });
    await cli.runs.wait(runId);
    await cli.dispose();
    const serve = engine('serve', '1', cli.context.ports.dataDir);
    const finished = await new Promise<{ kind: string; status: string }>((resolve) => serve.events.on('run/finished', resolve));
    expect(finished).toMatchObject({ kind: 'embed', status: 'done' });
    const status = await serve.handlers['search/status']({ repoId: repo.id });
    expect(status.embedders[0]?.vectors).toBe(status.chunks);
  });

  it('cancels a running embedding and stops the worker when the engine is disposed', async () => {
    const terminate = vi.spyOn(Worker.prototype, 'terminate');
    const core = engine('cli');
    const { repo, runId } = await core.handlers['repos/add']({ path: gitRepo() });
    await core.runs.wait(runId);
    const started = new Promise<void>((resolve) => core.events.on('run/progress', (p) => p.kind === 'embed' && resolve()));
    const embed = await core.handlers['search/embed']({ repoId: repo.id });
    await started;
    await core.dispose();
    await expect(core.runs.wait(embed.runId)).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(terminate).toHaveBeenCalled();
    terminate.mockRestore();
  });
});
