import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { windowStateFile } from '../core/platform/layout';

/** The window's last bounds, restored at the next start. */
export interface WindowState {
  x?: number;
  y?: number;
  width: number;
  height: number;
  isMaximized: boolean;
}

const DEFAULT_STATE: WindowState = { width: 1280, height: 820, isMaximized: false };

/** Read the saved window state; a missing or broken file gives the defaults. */
export function loadWindowState(dataDir: string): WindowState {
  const file = windowStateFile(dataDir);
  if (!existsSync(file)) return { ...DEFAULT_STATE };
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<WindowState>;
    const width = Number(parsed.width);
    const height = Number(parsed.height);
    if (!(width >= 400 && height >= 300)) return { ...DEFAULT_STATE };
    return { x: parsed.x, y: parsed.y, width, height, isMaximized: parsed.isMaximized === true };
  } catch {
    return { ...DEFAULT_STATE };
  }
}

/** Save the window state atomically (write a temporary file, then rename). */
export function saveWindowState(dataDir: string, state: WindowState): void {
  const file = windowStateFile(dataDir);
  writeFileSync(`${file}.tmp`, JSON.stringify(state));
  renameSync(`${file}.tmp`, file);
}
