import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** The environment variable that relocates all state (the CLI's --data-dir sets it too). */
export const DATA_DIR_ENV = 'CRA_HOME';

/**
 * Where Clean Room keeps its state: --data-dir, else CRA_HOME, else the platform's per-user data
 * folder. The Electron app and the CLI use the same folder so they see the same repositories.
 */
export function resolveDataDir(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (explicit) return resolve(explicit);
  const fromEnv = env[DATA_DIR_ENV];
  if (fromEnv) return resolve(fromEnv);
  const home = homedir();
  if (process.platform === 'darwin') return join(home, 'Library', 'Application Support', 'Clean Room');
  if (process.platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'Clean Room');
  return join(env.XDG_DATA_HOME ?? join(home, '.local', 'share'), 'clean-room');
}

let cachedRoot: string | undefined;

/**
 * The folder holding our package.json. Works from the TypeScript sources (CLI, tests) and from the
 * bundled Electron main in out/main, so resources/ and node_modules are found the same way.
 */
export function packageRoot(): string {
  if (cachedRoot) return cachedRoot;
  let dir = __dirname;
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const name = (JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string }).name;
      if (name === 'clean-room') return (cachedRoot = dir);
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`Cannot find the clean-room package root above ${__dirname}`);
    dir = parent;
  }
}

/** The package version, read once. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}
