import { afterAll, describe, expect, it } from 'vitest';
import { createDefaultEmbedder } from './embedder';
import { createBackgroundEmbedder } from './workerEmbedder';

const TEXTS = ['The cat sat on the mat.', 'parse HTTP headers from a raw response', 'email parser py Parser parse string', 'def polygon area points shoelace'];

describe('background embedder (real model in a worker thread)', () => {
  const background = createBackgroundEmbedder();
  afterAll(() => background.dispose());

  it('runs in a worker and gives the same vectors as embedding in this thread', async () => {
    const [inWorker, inThread] = await Promise.all([background.embed(TEXTS), createDefaultEmbedder().embed(TEXTS)]);
    expect(background.where).toBe('worker');
    expect(inWorker).toHaveLength(TEXTS.length);
    for (let i = 0; i < TEXTS.length; i++) {
      expect(inWorker[i]).toHaveLength(512);
      const maxDiff = Math.max(...inWorker[i]!.map((v, j) => Math.abs(v - inThread[i]![j]!)));
      expect(maxDiff).toBeLessThan(1e-5);
    }
  });

  it('rejects with CANCELLED at once when the signal fires during a request', async () => {
    const controller = new AbortController();
    const long = Array.from({ length: 64 }, (_, i) => `text number ${i} about parsing configuration files and sockets`);
    const outcome = background.embed(long, controller.signal).then(
      () => 'resolved',
      (error: unknown) => error,
    );
    // The request is in the worker (64 texts take seconds of model time) when the signal fires.
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    // The caller is released in the same turn of the event loop: no waiting for the batch in flight.
    const first = await Promise.race([outcome, new Promise((resolve) => setImmediate(() => resolve('still waiting')))]);
    expect(first).toMatchObject({ code: 'CANCELLED' });
  });
});

describe('background embedder fallback', () => {
  it('embeds in this thread, with a warning, when the worker cannot start', async () => {
    const warnings: string[] = [];
    const embedder = createBackgroundEmbedder({ entry: { eval: true, script: 'throw new Error("no worker here")' }, warn: (m) => warnings.push(m) });
    try {
      const [vector] = await embedder.embed(['fallback works']);
      expect(vector).toHaveLength(512);
      expect(embedder.where).toBe('in-thread');
      expect(warnings.join('\n')).toMatch(/could not start.*no worker here/);
    } finally {
      await embedder.dispose();
    }
  });
});
