#!/usr/bin/env node
// Prepares what `npm start` needs and `npm install` deliberately leaves out:
// 1. the Electron binary (package.json "allowScripts" skips electron's download at install, so that
//    installs succeed on machines that cannot reach the download host);
// 2. a better-sqlite3 build for Electron's ABI, kept apart from the plain-Node build in
//    node_modules/better-sqlite3/build (used by the CLI, `cra serve` and the tests), so that neither
//    `npm start` nor `npm test` breaks the other. The app loads it through better-sqlite3's
//    `nativeBinding` option (src/main/index.ts).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const require = createRequire(join(root, 'package.json'));
const target = process.argv[2] ?? 'electron';
if (target !== 'electron') {
  console.error(`ensure-native: unknown target "${target}" (only "electron" needs preparing; Node uses the build from npm install).`);
  process.exit(2);
}

function fail(message) {
  console.error(`ensure-native: ${message}`);
  process.exit(1);
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  return result.status === 0;
}

const electronDir = join(root, 'node_modules', 'electron');
const electronVersion = require('electron/package.json').version;
if (!existsSync(join(electronDir, 'path.txt'))) {
  console.log(`ensure-native: downloading the Electron ${electronVersion} binary (once)…`);
  // Electron's installer prints a whole stack trace when the download fails: kept back, and only its
  // first line (the reason) goes with the advice; CRA_DEBUG=1 prints all of it.
  const download = spawnSync(process.execPath, [join(electronDir, 'install.js')], { cwd: electronDir, env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '' }, stdio: ['inherit', 'inherit', 'pipe'], encoding: 'utf8' });
  if (download.status !== 0) {
    if (process.env.CRA_DEBUG) process.stderr.write(download.stderr ?? '');
    const reason = (download.stderr ?? '').split('\n').map((line) => line.trim()).find(Boolean) ?? download.error?.message ?? `exit status ${download.status}`;
    fail(`could not download Electron (${reason}). Check the network (or a proxy), then run \`npm start\` again. The browser mode works without it: \`npx cra serve\`.`);
  }
}

const outDir = join(root, 'node_modules', '.cra-native', `electron-${electronVersion}`);
const outFile = join(outDir, 'better_sqlite3.node');
if (existsSync(outFile)) process.exit(0);

console.log(`ensure-native: building better-sqlite3 for Electron ${electronVersion} (once, about a minute)…`);
const work = mkdtempSync(join(tmpdir(), 'cra-native-'));
try {
  const source = join(root, 'node_modules', 'better-sqlite3');
  cpSync(source, join(work, 'better-sqlite3'), { recursive: true, filter: (path) => !path.includes(`${join('better-sqlite3', 'build')}`) });
  const nodeGyp = process.env.npm_config_node_gyp;
  const [command, prefix] = nodeGyp ? [process.execPath, [nodeGyp]] : ['npx', ['--yes', 'node-gyp']];
  const args = [...prefix, 'rebuild', '--release', '--runtime=electron', `--target=${electronVersion}`, '--dist-url=https://electronjs.org/headers'];
  // The machine-wide `nodedir` npm setting would point node-gyp at Node's headers, not Electron's.
  const env = { ...process.env, npm_config_nodedir: '' };
  if (!run(command, args, { cwd: join(work, 'better-sqlite3'), env })) {
    fail('building better-sqlite3 for Electron failed (it needs a C++ toolchain and Electron headers from the network).');
  }
  mkdirSync(outDir, { recursive: true });
  cpSync(join(work, 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'), outFile);
  console.log(`ensure-native: ready (${outFile}).`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
