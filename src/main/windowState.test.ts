import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadWindowState, saveWindowState } from './windowState';

const dirs: string[] = [];
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'cra-window-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

describe('window state', () => {
  it('gives the defaults when nothing was saved', () => {
    expect(loadWindowState(dataDir())).toEqual({ width: 1280, height: 820, isMaximized: false });
  });

  it('restores what was saved, atomically written (no temporary file left)', () => {
    const dir = dataDir();
    saveWindowState(dir, { x: 40, y: 60, width: 1440, height: 900, isMaximized: true });
    expect(loadWindowState(dir)).toEqual({ x: 40, y: 60, width: 1440, height: 900, isMaximized: true });
    expect(readdirSync(dir)).toEqual(['window-state.json']);
    expect(JSON.parse(readFileSync(join(dir, 'window-state.json'), 'utf8'))).toMatchObject({ width: 1440 });
  });

  it.each([
    ['a broken file', '{"width": 14'],
    ['a window too small to use', '{"width": 200, "height": 100}'],
    ['sizes that are not numbers', '{"width": "wide", "height": null}'],
  ])('falls back to the defaults for %s', (_what, text) => {
    const dir = dataDir();
    writeFileSync(join(dir, 'window-state.json'), text);
    expect(loadWindowState(dir)).toEqual({ width: 1280, height: 820, isMaximized: false });
  });
});
