#!/usr/bin/env node
// Clone the development repositories of `cra eval` (bench/devset.json) into a folder, each at its
// pinned commit, so every session measures the same history. Only names, URLs and commits live in
// this repository; the clones go wherever the caller says, outside the project.
//
//   node scripts/devset.mjs <folder> [--only a,b] [--urls FILE]
//
// --urls FILE: lines `name url` that replace the URLs of bench/devset.json (a local mirror, a bare
// git directory, a file:// URL), for machines without network access to GitHub.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const usage = 'usage: node scripts/devset.mjs <folder> [--only name,name] [--urls FILE]';

function parseArgs(argv) {
  const args = { folder: undefined, only: undefined, urls: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--only' || arg === '--urls') {
      const value = argv[++i];
      if (!value) throw new Error(`${arg} needs a value. ${usage}`);
      if (arg === '--only') args.only = new Set(value.split(',').map((s) => s.trim()).filter(Boolean));
      else args.urls = value;
    } else if (arg === '-h' || arg === '--help') {
      console.log(usage);
      process.exit(0);
    } else if (arg.startsWith('-')) {
      throw new Error(`Unknown option ${arg}. ${usage}`);
    } else if (args.folder) {
      throw new Error(`One folder only (got ${args.folder} and ${arg}). ${usage}`);
    } else {
      args.folder = arg;
    }
  }
  if (!args.folder) throw new Error(`Name the folder to clone into. ${usage}`);
  return args;
}

/** `name url` lines of an URL list (blank lines and # comments ignored). */
function readUrlList(file) {
  const urls = new Map();
  readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
    const text = line.replace(/#.*/, '').trim();
    if (!text) return;
    const [name, url, extra] = text.split(/\s+/);
    if (!url || extra) throw new Error(`${file}:${i + 1}: expected "name url", got "${line.trim()}"`);
    urls.set(name, url);
  });
  return urls;
}

const git = (args, cwd) => execFileSync('git', args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' }).trim();

function main() {
  const args = parseArgs(process.argv.slice(2));
  const { repositories } = JSON.parse(readFileSync(join(here, '..', 'bench', 'devset.json'), 'utf8'));
  const overrides = args.urls ? readUrlList(args.urls) : new Map();
  for (const name of [...(args.only ?? []), ...overrides.keys()]) {
    if (!repositories.some((r) => r.name === name)) throw new Error(`${name} is not in bench/devset.json (${repositories.map((r) => r.name).join(', ')})`);
  }
  const folder = resolve(args.folder);
  for (const repo of repositories) {
    if (args.only && !args.only.has(repo.name)) continue;
    const dir = join(folder, repo.name);
    const url = overrides.get(repo.name) ?? repo.url;
    if (!existsSync(dir)) git(['clone', '--quiet', '--no-checkout', url, dir]);
    // Branch `devset` at the pinned commit: `cra eval` mines the history behind HEAD.
    try {
      git(['cat-file', '-e', `${repo.commit}^{commit}`], dir);
    } catch {
      git(['fetch', '--quiet', url], dir);
    }
    git(['checkout', '--quiet', '-B', 'devset', repo.commit], dir);
    console.log(`${repo.name.padEnd(12)} ${repo.commit.slice(0, 12)} ${dir}`);
  }
}

try {
  main();
} catch (error) {
  console.error(`devset: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
