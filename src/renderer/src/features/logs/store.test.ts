import { beforeEach, describe, expect, it } from 'vitest';
import type { ModelCallDetail } from '../../../../shared/contract';
import { setClientForTests, type Client } from '../../lib/client';
import { useLogsStore } from './store';

/** A client that records what the store asks for and answers with one call. */
function recordingClient(asked: Array<{ method: string; input: unknown }>): Client {
  const call = { id: 12, createdAt: '2026-01-01T00:00:00Z', runId: 'retrieve-1', stage: 'scope', model: 'm', prompt: 'p' } as ModelCallDetail;
  return {
    call: (async (method: string, input: unknown) => {
      asked.push({ method, input });
      if (method === 'logs/list') return { total: 1, calls: [call] };
      if (method === 'logs/get') return call;
      throw new Error(`unexpected ${method}`);
    }) as Client['call'],
    subscribe: () => () => undefined,
  };
}

describe('logs store', () => {
  let asked: Array<{ method: string; input: unknown }>;
  beforeEach(() => {
    asked = [];
    setClientForTests(recordingClient(asked));
    useLogsStore.setState({ repoId: null, selected: null, filters: { runId: '', stage: 'old', model: '', errorsOnly: true } });
  });

  it('opens a call of a repository’s log with its run’s calls in the table (the Context inspector’s verdict link)', async () => {
    await useLogsStore.getState().openCall({ repoId: 'shop-1', callId: 12, runId: 'retrieve-1' });
    expect(asked).toContainEqual({ method: 'logs/get', input: { id: 12, repoId: 'shop-1' } });
    expect(asked).toContainEqual({ method: 'logs/list', input: expect.objectContaining({ repoId: 'shop-1', runId: 'retrieve-1', errorsOnly: false, offset: 0 }) as unknown });
    expect(useLogsStore.getState()).toMatchObject({ repoId: 'shop-1', selected: { id: 12 }, filters: { runId: 'retrieve-1', stage: '' } });
  });

  it('lists the app-wide log without a repository, and a run of a repository’s log', async () => {
    await useLogsStore.getState().showLog(null);
    expect(asked.at(-1)?.input).not.toHaveProperty('repoId');
    await useLogsStore.getState().openRun({ repoId: 'shop-1', runId: 'retrieve-2' });
    expect(asked.at(-1)).toEqual({ method: 'logs/list', input: expect.objectContaining({ repoId: 'shop-1', runId: 'retrieve-2' }) as unknown });
  });
});
