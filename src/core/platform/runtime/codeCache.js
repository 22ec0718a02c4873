'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS, loaded by bin/cra.js before any TypeScript */
// Loading the CLI bundles (out/cli/main.js, engine.js) with V8's code cache. Node 20 compiles a CommonJS file from its source on
// every start (module.enableCompileCache arrived in Node 22.1): for the 2 MB bundle that parse is
// the largest part of `cra --version`. Here the bundle is compiled with the bytes V8 produced for it
// on an earlier run (out/cli/main.js.v8cache), so the top level and the functions that run were
// compiled once. The cache is checked against the bundle (size and mtime) and Node's V8 version,
// and V8 itself rejects data from another version or flag set; any doubt compiles from source.
const Module = require('node:module');
const { isAscii } = require('node:buffer');
const { readFileSync, renameSync, statSync, writeFileSync } = require('node:fs');
const { dirname } = require('node:path');
const vm = require('node:vm');

/** The modules loaded so far, by file: each file runs once per process, as with require. */
const loaded = new Map();

/** The first line of a cache file: what it was produced from. */
function stampOf(file) {
  const { size, mtimeMs } = statSync(file);
  return `cra-code-cache 1 ${process.versions.v8} ${process.arch} ${size} ${mtimeMs}`;
}

/** The cached bytes for `file` when `cacheFile` holds them for this very bundle and V8, else undefined. */
function readCache(cacheFile, stamp) {
  let bytes;
  try {
    bytes = readFileSync(cacheFile);
  } catch {
    return undefined;
  }
  const newline = bytes.indexOf(10);
  if (newline < 0 || bytes.subarray(0, newline).toString('latin1') !== stamp) return undefined;
  return bytes.subarray(newline + 1);
}

/** Write the cache (temporary file, then rename: a concurrent reader sees the old file or the new one). */
function writeCache(cacheFile, stamp, data) {
  const tmp = `${cacheFile}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, Buffer.concat([Buffer.from(`${stamp}\n`, 'latin1'), data]));
    renameSync(tmp, cacheFile);
  } catch {
    // A read-only install or a full disk: the next start compiles from source, as Node would.
  }
}

/**
 * The file's text. The CLI build writes its bundles in ASCII (scripts/build-cli.mjs): read as latin1
 * that is a copy (~3 ms for engine.js) where UTF-8 decoding costs ~10 ms, and V8 keeps it as a
 * one-byte string; any other file is decoded as UTF-8.
 */
function sourceText(bytes) {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

/**
 * Where the CLI says which command runs, before the engine loads (src/hosts/cli/context.ts): a cache
 * holds the functions V8 compiled in the run that wrote it, so one shared engine cache written by
 * `cra index` left search's and chat's functions to be compiled on every start, and made them
 * deserialise the indexer's. Each command keeps its own cache of engine.js instead.
 */
const COMMAND_KEY = Symbol.for('clean-room.cli.command');

/** `<file>.<command>.v8cache` when the CLI named its command (a plain word), else `<file>.v8cache`. */
function defaultCacheFile(file) {
  const command = globalThis[COMMAND_KEY];
  return typeof command === 'string' && /^[a-z][a-z0-9-]{0,40}$/.test(command) ? `${file}.${command}.v8cache` : `${file}.v8cache`;
}

/**
 * Load the CommonJS file `file` like `require(file)` and return its exports, compiled with the code
 * cache in `cacheFile` when that is valid. The file must not call import() itself: V8 drops the
 * dynamic-import hook of a script compiled from a cache (the CLI build routes the bundles' import()
 * calls through out/cli/dynamicImport.js, a module Node loads). Without a valid cache it compiles
 * from source and, when the process exits, stores what V8 compiled during the run (the command's
 * own functions included). The default cache file is per command (see {@link COMMAND_KEY}).
 */
function requireWithCodeCache(file, cacheFile = defaultCacheFile(file)) {
  const done = loaded.get(file);
  if (done) return done.exports;
  const stamp = stampOf(file);
  const cachedData = readCache(cacheFile, stamp);
  const source = sourceText(readFileSync(file));
  const script = new vm.Script(Module.wrap(source), {
    filename: file,
    cachedData,
  });
  if (cachedData === undefined || script.cachedDataRejected) {
    process.once('exit', () => writeCache(cacheFile, stamp, script.createCachedData()));
  }
  const mod = { exports: {}, filename: file, id: file, loaded: false };
  loaded.set(file, mod);
  script.runInThisContext()(mod.exports, Module.createRequire(file), mod, file, dirname(file));
  mod.loaded = true;
  return mod.exports;
}

module.exports = { requireWithCodeCache, COMMAND_KEY };
