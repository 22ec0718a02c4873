import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HostKind, RunFinished } from '../../../shared/contract';
import { createCore, type Core } from '../createCore';
import { openDatabase } from '../../platform/db/open';
import { DEFAULT_EMBEDDER_ID } from '../../knowledge/search/embedder';
import { VectorStore } from '../../knowledge/search/vectorStore';
import { repoPaths } from '../../platform/layout';

/** A small committed git repository of Python files (a few chunks: the real model embeds it in about a second). */
function gitRepo(): string {
  const root = mkdtempSync(join(tmpdir(), 'cra-vectors-'));
  writeFileSync(join(root, 'mailer.py'), 'def send_mail(to, body):\n    """Deliver a message over SMTP."""\n    return to, body\n');
  writeFileSync(join(root, 'shapes.py'), 'class Circle:\n    def area(self):\n        """Surface of the circle."""\n        return 3.14 * self.r ** 2\n');
  writeFileSync(join(root, 'notes.py'), 'def remember(item):\n    """Keep a note for later."""\n    return [item]\n');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=T', ...args], { cwd: root, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
  return root;
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

/** An engine over a fresh data folder with CRA_EMBEDDINGS unset (the config decides), optionally with a config.toml. */
function engine(host: HostKind, configToml?: string): Core {
  const dataDir = mkdtempSync(join(tmpdir(), 'cra-vectors-core-'));
  if (configToml !== undefined) writeFileSync(join(dataDir, 'config.toml'), configToml);
  const previous = process.env.CRA_EMBEDDINGS;
  delete process.env.CRA_EMBEDDINGS;
  const core = createCore({ host, dataDir });
  if (previous !== undefined) process.env.CRA_EMBEDDINGS = previous;
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  cleanups.push(() => core.dispose());
  return core;
}

async function addRepo(core: Core): Promise<string> {
  const root = gitRepo();
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const { repo, runId } = await core.handlers['repos/add']({ path: root });
  await core.runs.wait(runId);
  return repo.id;
}

const setEmbeddings = (core: Core, on: boolean) => core.handlers['config/set']({ edits: [{ path: ['retrieval', 'embeddings'], value: on }] });
const embedRuns = (core: Core) => core.runs.list().filter((r) => r.kind === 'embed');
const nextEmbedEnd = (core: Core) => new Promise<RunFinished>((resolve) => core.events.on('run/finished', (r) => r.kind === 'embed' && resolve(r)));
/** The app hosts start embedding on a timer tick after the ready event; this is ample time for one. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describe('the embeddings switch takes effect without a restart', () => {
  it('switched on in Settings, the ready repositories are embedded at once and new ones after their index', async () => {
    const core = engine('serve', '[retrieval]\nembeddings = false\n');
    const first = await addRepo(core);
    await settle();
    expect(embedRuns(core)).toEqual([]);

    const embedded = nextEmbedEnd(core);
    await setEmbeddings(core, true);
    expect((await embedded).status).toBe('done');
    const status = await core.handlers['search/status']({ repoId: first });
    expect(status.embedders).toEqual([expect.objectContaining({ embedderId: DEFAULT_EMBEDDER_ID, vectors: status.chunks })]);
    expect(status.autoEmbed).toBe(true);

    const again = nextEmbedEnd(core);
    const second = await addRepo(core);
    expect((await again).status).toBe('done');
    const secondStatus = await core.handlers['search/status']({ repoId: second });
    expect(secondStatus.embedders[0]?.vectors).toBe(secondStatus.chunks);
  });

  it('switched off in Settings, a running automatic embedding is cancelled and the next index starts none', async () => {
    const core = engine('serve', '[retrieval]\nembeddings = true\n');
    // Switch off as soon as the automatic run of the first repository starts (the model is still loading).
    const started = new Promise<void>((resolve) => core.events.on('run/started', (r) => r.kind === 'embed' && resolve()));
    const ended = nextEmbedEnd(core);
    const first = await addRepo(core);
    await started;
    await setEmbeddings(core, false);
    expect((await ended).status).toBe('cancelled');
    expect((await core.handlers['search/status']({ repoId: first })).autoEmbed).toBe(false);

    await addRepo(core);
    await settle();
    expect(embedRuns(core).filter((r) => r.status === 'running')).toEqual([]);
    expect(embedRuns(core)).toHaveLength(1);
  });

  it('saving another setting does not restart an automatic embedding the user cancelled', async () => {
    const core = engine('serve', '[retrieval]\nembeddings = true\n');
    const started = new Promise<string>((resolve) => core.events.on('run/started', (r) => r.kind === 'embed' && resolve(r.runId)));
    const ended = nextEmbedEnd(core);
    await addRepo(core);
    core.runs.cancel(await started);
    expect((await ended).status).toBe('cancelled');
    await core.handlers['config/set']({ edits: [{ path: ['retrieval', 'top_k'], value: 10 }] });
    await settle();
    expect(embedRuns(core)).toHaveLength(1);
  });

  it('a hand edit of config.toml is noticed too (the engine polls the switch)', async () => {
    const core = engine('serve');
    const repoId = await addRepo(core);
    const embedded = nextEmbedEnd(core);
    writeFileSync(join(core.context.ports.dataDir, 'config.toml'), '[retrieval]\nembeddings = true\n');
    expect((await embedded).status).toBe('done');
    const status = await core.handlers['search/status']({ repoId });
    expect(status.embedders[0]?.vectors).toBe(status.chunks);
  });
});

describe('search says how far vectors cover the repository', () => {
  it('hybrid with no vectors falls back to keyword and says so; semantic says it has nothing to rank', async () => {
    const core = engine('cli');
    const repoId = await addRepo(core);
    const hybrid = await core.handlers['search/query']({ repoId, query: 'deliver a message', mode: 'hybrid' });
    expect(hybrid.mode).toBe('keyword');
    expect(hybrid.vectorCoverage).toEqual({ embedderId: DEFAULT_EMBEDDER_ID, vectors: 0, chunks: expect.any(Number) });
    expect(hybrid.vectorCoverage!.chunks).toBeGreaterThan(0);
    expect(hybrid.note).toMatch(/no vectors/i);
    expect(hybrid.note).toMatch(/keyword/i);
    expect(hybrid.note).toContain('Embed now');

    const semantic = await core.handlers['search/query']({ repoId, query: 'deliver a message', mode: 'semantic' });
    expect(semantic.mode).toBe('semantic');
    expect(semantic.results).toEqual([]);
    expect(semantic.note).toMatch(/no vectors/i);

    // Keyword search makes no claim about vectors.
    const keyword = await core.handlers['search/query']({ repoId, query: 'deliver a message', mode: 'keyword' });
    expect(keyword.vectorCoverage).toBeUndefined();
    expect(keyword.note).toBeUndefined();
  });

  it('hybrid with vectors for part of the chunks reports the coverage and notes it; full coverage has no note', async () => {
    const core = engine('cli');
    const repoId = await addRepo(core);
    const file = repoPaths(core.context.ports.dataDir, repoId).curated;
    const db = openDatabase(file, { withVectors: true });
    const ids = db.prepare('select id from chunks order by id').pluck().all() as number[];
    const store = VectorStore.open(db, DEFAULT_EMBEDDER_ID, 512);
    const unit = (seed: number) => {
      const v = new Float32Array(512);
      v[seed % 512] = 1;
      return v;
    };
    store.upsert([{ chunkId: ids[0]!, hash: 'h0', vector: unit(0) }]);
    const partial = await core.handlers['search/query']({ repoId, query: 'deliver a message', mode: 'hybrid' });
    expect(partial.mode).toBe('hybrid');
    expect(partial.vectorCoverage).toEqual({ embedderId: DEFAULT_EMBEDDER_ID, vectors: 1, chunks: ids.length });
    expect(partial.note).toContain(`1 of ${ids.length} chunks`);

    store.upsert(ids.slice(1).map((id, i) => ({ chunkId: id, hash: `h${i + 1}`, vector: unit(i + 1) })));
    db.close();
    const full = await core.handlers['search/query']({ repoId, query: 'deliver a message', mode: 'hybrid' });
    expect(full.vectorCoverage).toEqual({ embedderId: DEFAULT_EMBEDDER_ID, vectors: ids.length, chunks: ids.length });
    expect(full.note).toBeUndefined();
  });
});
