import { afterAll, describe, expect, it } from 'vitest';
import type { ConfigSnapshot } from '../../../shared/contract';
import { createTempCore } from '../../testing/tempCore';

describe('config/set announces the change as an event (issue 23 item 3: reactions through events)', () => {
  const { core, cleanup } = createTempCore();
  afterAll(cleanup);

  it('emits config/changed with the snapshot after the edit, once per request; a refused edit emits nothing', async () => {
    await core.handlers['config/init']({});
    const seen: ConfigSnapshot[] = [];
    const stop = core.events.on('config/changed', (snapshot) => seen.push(snapshot));
    const returned = await core.handlers['config/set']({ edits: [{ path: ['retrieval', 'embeddings'], value: true }] });
    expect(seen).toEqual([returned]);
    expect((seen[0]!.values as { retrieval: { embeddings: boolean } }).retrieval.embeddings).toBe(true);

    await expect(core.handlers['config/set']({ edits: [{ path: ['orchestrator', 'max_parts'], value: 0 }] })).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    expect(seen).toHaveLength(1);
    stop();
  });
});
