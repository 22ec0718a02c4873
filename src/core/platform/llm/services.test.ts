import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EventBus } from '../runtime/events';
import { ModelRouter } from './router';
import { createModelServices } from './services';

const cleanups: Array<() => void> = [];
afterEach(() => {
  vi.restoreAllMocks();
  while (cleanups.length) cleanups.pop()!();
});

function services() {
  const dataDir = mkdtempSync(join(tmpdir(), 'cra-services-'));
  const events = new EventBus();
  const llm = createModelServices({ dataDir, events });
  cleanups.push(() => {
    void llm.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const write = (model: string) => writeFileSync(join(dataDir, 'config.toml'), `[models]\nreasoning = "${model}"\ncoding = "${model}"\nbase_url = "http://127.0.0.1:9"\n`);
  return { llm, write };
}

describe('model services', () => {
  it('resolve the models of calls from the config as it is on disk, reading it again only when it changed', () => {
    const { llm, write } = services();
    write('qwen3:0.6b');
    const resolve = vi.spyOn(ModelRouter.prototype, 'resolve');
    expect(llm.client.resolve({ role: 'reasoning' }).model).toBe('qwen3:0.6b');
    expect(llm.client.resolve({ role: 'reasoning' }).model).toBe('qwen3:0.6b');
    // One router for the unchanged file (not a file read and validation per model call).
    expect(resolve.mock.contexts[1]).toBe(resolve.mock.contexts[0]);
    // An edit (the Settings page, or by hand) applies to the next call at once.
    write('qwen2.5-coder:1.5b');
    expect(llm.client.resolve({ role: 'reasoning' }).model).toBe('qwen2.5-coder:1.5b');
    expect(resolve.mock.contexts[2]).not.toBe(resolve.mock.contexts[0]);
  });
});
