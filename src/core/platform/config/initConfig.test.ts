import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { initConfigFile } from './configFile';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

describe('initConfigFile', () => {
  it('says that config.toml is a folder, and what to do, instead of "already exists" (also with --force)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cra-init-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'config.toml');
    mkdirSync(file);
    for (const force of [false, true]) {
      expect(() => initConfigFile(file, { force })).toThrow(expect.objectContaining({ code: 'VALIDATION', message: `${file} is a folder, not a config file. Move or remove that folder, or write the config elsewhere with --config FILE.` }));
    }
    expect(readdirSync(dir)).toEqual(['config.toml']); // nothing written beside it
  });
});
