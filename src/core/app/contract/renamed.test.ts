import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RENAMED_EVENTS, RENAMED_KEYS, events, isEventKey, isRequestKey } from '../../../shared/contract';
import { EventBus } from '../../platform/runtime/events';
import { createTempCore } from '../../testing/tempCore';
import type { Core } from '../createCore';
import { dispatch } from './dispatch';

/**
 * The keys renamed in issue 23 (one word per idea) keep working for one release: an old request
 * key reaches the new handler through the same validation, and a renamed event is pushed to the
 * transports under both names.
 */
let env: ReturnType<typeof createTempCore>;
let core: Core;

beforeAll(() => {
  env = createTempCore();
  core = env.core;
});
afterAll(async () => {
  await env.cleanup();
});

describe('renamed contract keys (deprecated aliases, one release)', () => {
  it('maps every old key to a current key, and no old key is still a key of its own', () => {
    for (const [old, current] of Object.entries(RENAMED_KEYS)) {
      expect(isRequestKey(current), current).toBe(true);
      expect(isRequestKey(old), old).toBe(false);
    }
    for (const [old, current] of Object.entries(RENAMED_EVENTS)) {
      expect(isEventKey(current), current).toBe(true);
      expect(Object.keys(events)).not.toContain(old);
    }
  });

  it('answers an old key with the new handler: the same value as the new key', async () => {
    const viaOld = await dispatch(core.handlers, 'data/overview', {});
    const viaNew = await dispatch(core.handlers, 'training/overview', {});
    expect(viaOld.ok).toBe(true);
    expect(viaOld).toEqual(viaNew);
  });

  it('validates an old key with the new key schema, and still refuses a key that never was', async () => {
    const refused = await dispatch(core.handlers, 'solve/get', { repoId: 'repo-1' });
    expect(refused).toMatchObject({ ok: false, error: { code: 'VALIDATION', message: expect.stringMatching(/^Invalid input for plans\/getRun: solveRunId: /) as unknown } });
    const strict = await dispatch(core.handlers, 'data/overview', { extra: 1 });
    expect(strict).toMatchObject({ ok: false, error: { code: 'VALIDATION' } });
    const unknown = await dispatch(core.handlers, 'solve/bogus', {});
    expect(unknown).toMatchObject({ ok: false, error: { code: 'NOT_FOUND', message: 'Unknown request "solve/bogus".' } });
  });

  it('pushes a renamed event to the transports under its new name and then its old one, the same payload', () => {
    const bus = new EventBus();
    const forwarded: Array<[string, unknown]> = [];
    const direct: unknown[] = [];
    bus.onAny((event, payload) => forwarded.push([event, payload]));
    bus.on('retrieval/judgment', (payload) => direct.push(payload));
    const judgment = { runId: 'r-1', taskId: 't-1', stage: 'scope', itemId: 'a.py', verdict: true } as never;
    bus.emit('retrieval/judgment', judgment);
    bus.emit('run/progress', { runId: 'r-1' } as never);
    expect(forwarded).toEqual([
      ['retrieval/judgment', judgment],
      ['retrieve/judgment', judgment],
      ['run/progress', { runId: 'r-1' }],
    ]);
    expect(direct).toEqual([judgment]);
  });
});
