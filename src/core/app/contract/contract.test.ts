import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, events, requests, type RequestKey } from '../../../shared/contract';
import type { Core } from '../createCore';
import { createTempCore } from '../../testing/tempCore';
import { createInMemoryBridge } from './inMemoryTransport';

let env: ReturnType<typeof createTempCore>;
let core: Core;

beforeAll(() => {
  env = createTempCore();
  core = env.core;
});
afterAll(async () => {
  await env.cleanup();
});

describe('the contract', () => {
  const keys = Object.keys(requests) as RequestKey[];

  it('has a handler for every request key and nothing else', () => {
    expect(Object.keys(core.handlers).sort()).toEqual([...keys].sort());
  });

  it('names requests domain/verb and events domain/noun', () => {
    for (const key of [...keys, ...Object.keys(events)]) expect(key).toMatch(/^[a-z]+\/[a-zA-Z]+$/);
  });

  it.each(keys)('answers %s with its example input on an empty engine: a value, or an expected error (the prepared engine of roundTrip.test.ts makes every example succeed)', async (key) => {
    const bridge = createInMemoryBridge(core);
    const envelope = await bridge.invoke(key, requests[key].example as never);
    if (envelope.ok) {
      // The value survived a JSON round trip, as it must over IPC and WebSocket.
      expect(JSON.parse(JSON.stringify(envelope.value))).toEqual(envelope.value);
    } else {
      // Examples may point at things that do not exist; the failure must still be an expected one.
      expect(ERROR_CODES).toContain(envelope.error.code);
      expect(envelope.error.code).not.toBe('INTERNAL');
      expect(envelope.error.code).not.toBe('VALIDATION');
    }
  });

  it.each(keys)('rejects a non-object input for %s with VALIDATION', async (key) => {
    const envelope = await createInMemoryBridge(core).invoke(key, 42 as never);
    expect(envelope.ok).toBe(false);
    if (!envelope.ok) expect(envelope.error.code).toBe('VALIDATION');
  });

  it('answers an unknown method with NOT_FOUND', async () => {
    const envelope = await createInMemoryBridge(core).invoke('nope/never' as RequestKey, {} as never);
    expect(envelope).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });

  it('delivers pushed events to subscribers until they unsubscribe', async () => {
    const bridge = createInMemoryBridge(core);
    const seen: string[] = [];
    const off = bridge.subscribe('run/finished', (payload) => seen.push(payload.runId));
    const { runId, done } = core.runs.start('pull', 'a test job', async () => ({ model: 'a' }), { model: 'a' });
    await done;
    off();
    const second = core.runs.start('pull', 'another', async () => ({ model: 'b' }), { model: 'b' });
    await second.done;
    expect(seen).toEqual([runId]);
  });
});
