import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCore } from './createCore';
import { packageRoot } from '../platform/paths';
import { hostPolicy } from '../platform/ports';

const core = join(packageRoot(), 'src', 'core');

/** Source files (not tests, not test support) of src/core, relative to it. */
function sources(dir = core): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'testing' ? [] : sources(path);
    return /\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name) ? [relative(core, path)] : [];
  });
}

describe('host differences are one policy decided at start (issue 23 item 3)', () => {
  it('the app hosts take paths from forms, watch, follow the index with embeddings and check the model server; the CLI and tests do none of it', () => {
    for (const host of ['electron', 'serve'] as const) {
      expect(hostPolicy(host)).toEqual({ pathsFromForms: true, watchByDefault: true, embedAfterIndex: true, checkModelServerAtStart: true, evalVia: 'app' });
    }
    for (const host of ['cli', 'test'] as const) {
      expect(hostPolicy(host)).toEqual({ pathsFromForms: false, watchByDefault: false, embedAfterIndex: false, checkModelServerAtStart: false, evalVia: 'cli' });
    }
  });

  it("no engine code but ports.ts compares the host's name", () => {
    const files = sources();
    expect(files.length).toBeGreaterThan(100);
    const branching = files.filter((file) => /\bhost\s*[!=]==\s*'(electron|serve|cli|test)'|'(electron|serve|cli|test)'\s*[!=]==\s*[\w.]*host\b/.test(readFileSync(join(core, file), 'utf8')));
    // ports.ts (hostPolicy) only, wherever the regroup puts it.
    expect(branching).toEqual([expect.stringMatching(/(^|\/)ports\.ts$/)]);
  });

  describe('features read the policy, not the host', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cra-policy-'));
    // A test host given the app's path rule: the repository service refuses a relative path as the app does.
    const engine = createCore({ host: 'test', dataDir, policy: { ...hostPolicy('test'), pathsFromForms: true } });
    afterAll(async () => {
      await engine.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('a relative path is refused under pathsFromForms', async () => {
      await expect(engine.handlers['repos/add']({ path: 'some/relative/folder' })).rejects.toMatchObject({ code: 'VALIDATION', message: expect.stringContaining('is a relative path') });
    });
  });
});
