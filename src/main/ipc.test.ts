/**
 * The IPC binding of the desktop app, run without the Electron binary: `ipcMain` and the window's
 * WebContents are stood in for at the process edge (what Electron would call), the engine and the
 * contract's dispatch are real.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { IPC_EVENT_CHANNEL, IPC_INVOKE_CHANNEL } from '../shared/contract/bridge';
import { requests } from '../shared/contract';
import { createTempCore } from '../core/testing/tempCore';

type Handler = (event: unknown, method: unknown, input: unknown) => Promise<unknown>;
const handlers = new Map<string, Handler>();
vi.mock('electron', () => ({
  ipcMain: {
    handle: (channel: string, handler: Handler) => {
      if (handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
      handlers.set(channel, handler);
    },
    removeHandler: (channel: string) => handlers.delete(channel),
  },
}));
const { bindContract } = await import('./ipc');

/** A window's WebContents: what was sent to it, and its `destroyed` listeners. */
function fakeWindow() {
  const sent: Array<{ channel: string; message: { event: string; payload: unknown } }> = [];
  const onDestroyed: Array<() => void> = [];
  let destroyed = false;
  return {
    sent,
    destroy() {
      destroyed = true;
      for (const listener of onDestroyed) listener();
    },
    contents: {
      isDestroyed: () => destroyed,
      send: (channel: string, message: { event: string; payload: unknown }) => sent.push({ channel, message }),
      once: (event: string, listener: () => void) => (event === 'destroyed' ? onDestroyed.push(listener) : undefined),
    },
  };
}

const temp = createTempCore();
afterAll(async () => {
  await temp.cleanup();
});

describe('the desktop IPC binding', () => {
  it('registers one invoke channel that dispatches every contract key through validation', async () => {
    const window = fakeWindow();
    bindContract(temp.core, window.contents as never);
    const invoke = handlers.get(IPC_INVOKE_CHANNEL)!;
    expect([...handlers.keys()]).toEqual([IPC_INVOKE_CHANNEL]);
    await expect(invoke({}, 'app/info', {})).resolves.toMatchObject({ ok: true, value: { name: 'Clean Room' } });
    // Every key of the contract reaches its handler's validation (the renderer is untrusted).
    for (const key of Object.keys(requests)) {
      await expect(invoke({}, key, 42)).resolves.toMatchObject({ ok: false, error: { code: 'VALIDATION' } });
    }
    await expect(invoke({}, 'nope/never', {})).resolves.toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    await expect(invoke({}, { toString: () => 'app/info' }, {})).resolves.toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });

  it('binding again (a new window) replaces the handler instead of failing', () => {
    const first = fakeWindow();
    const second = fakeWindow();
    bindContract(temp.core, first.contents as never);
    expect(() => bindContract(temp.core, second.contents as never)).not.toThrow();
    expect([...handlers.keys()]).toEqual([IPC_INVOKE_CHANNEL]);
  });

  it('forwards every engine event to the window until it is destroyed', async () => {
    const window = fakeWindow();
    bindContract(temp.core, window.contents as never);
    const first = temp.core.runs.start('pull', 'a job', async () => ({ model: 'a' }), { model: 'a' });
    await first.done;
    const finished = window.sent.filter((s) => s.channel === IPC_EVENT_CHANNEL && s.message.event === 'run/finished');
    expect(finished.map((s) => (s.message.payload as { runId: string }).runId)).toEqual([first.runId]);
    window.destroy();
    const count = window.sent.length;
    await temp.core.runs.start('pull', 'another', async () => ({ model: 'b' }), { model: 'b' }).done;
    expect(window.sent).toHaveLength(count);
  });

  it('uses the channel names the preload script uses', async () => {
    const { readFileSync } = await import('node:fs');
    const preload = readFileSync(new URL('../preload/index.ts', import.meta.url), 'utf8');
    expect(preload).toContain(`const INVOKE = '${IPC_INVOKE_CHANNEL}'`);
    expect(preload).toContain(`const EVENT = '${IPC_EVENT_CHANNEL}'`);
  });
});
