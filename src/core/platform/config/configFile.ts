import { nodeCrypto } from '../nodeModules';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { AppError } from '../../../shared/contract';
import { getIn, parseToml, validateConfig } from './load';
import { DEFAULT_CONFIG_TEMPLATE } from './template';
import { removeTomlKey, setTomlKey, type TomlValue } from './tomlEdit';

/** One edit: a key path such as ["models", "overrides", "scope"]; `value: undefined` removes the key. */
export interface ConfigEdit {
  path: string[];
  value: TomlValue | undefined;
}

/**
 * Write `text` to `file` atomically: a temporary file beside it, flushed, then renamed over the
 * target. A crash leaves either the old file or the new one, never half of either.
 */
export function writeFileAtomic(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}-${nodeCrypto().randomBytes(4).toString('hex')}`;
  try {
    const fd = openSync(tmp, 'w', 0o644);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (error) {
    rmSync(tmp, { force: true });
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC') throw new AppError('DISK_FULL', `Cannot write ${file}: the disk is full. Free some space and try again.`, { cause: error });
    throw error;
  }
}

/** Write the commented default config; refuses to overwrite an existing file unless `force`. */
export function initConfigFile(file: string, options: { force?: boolean } = {}): { path: string; created: boolean } {
  if (existsSync(file) && statSync(file).isDirectory()) {
    // Even with --force: a folder is never replaced (it may hold anything), and is not a config.
    throw new AppError('VALIDATION', `${file} is a folder, not a config file. Move or remove that folder, or write the config elsewhere with --config FILE.`);
  }
  if (existsSync(file) && !options.force) return { path: file, created: false };
  writeFileAtomic(file, DEFAULT_CONFIG_TEMPLATE);
  return { path: file, created: true };
}

/** Apply edits to TOML text and prove the result: it parses, each edited key holds its new value, and nothing else moved. */
export function editConfigText(text: string, edits: readonly ConfigEdit[], label: string): string {
  const before = parseToml(text, label);
  let next = text;
  let expected: Record<string, unknown> = structuredClone(before);
  for (const edit of edits) {
    if (edit.path.length < 2) throw new Error(`A config edit needs a table and a key, got ${edit.path.join('.')}`);
    const table = edit.path.slice(0, -1).join('.');
    const key = edit.path[edit.path.length - 1] as string;
    next = edit.value === undefined ? removeTomlKey(next, table, key) : setTomlKey(next, table, key, edit.value);
    expected = setIn(expected, edit.path, edit.value);
  }
  let after: Record<string, unknown>;
  try {
    after = parseToml(next, label);
  } catch (error) {
    throw new AppError('CONFIG_INVALID', `Could not edit ${label} safely (the result would not parse); the file was left unchanged. Edit it by hand.`, { cause: error });
  }
  if (!isDeepStrictEqual(after, expected)) {
    const keys = edits.map((e) => e.path.join('.')).join(', ');
    throw new AppError('CONFIG_INVALID', `Could not edit ${keys} in ${label} safely (its layout is unusual); the file was left unchanged. Edit it by hand.`);
  }
  return next;
}

/**
 * Edit keys of a config file in place, keeping the user's comments: validate the new values
 * first, then write atomically. A missing file is CONFIG_MISSING (run `cra init`).
 */
export function editConfigFile(file: string, edits: readonly ConfigEdit[]): void {
  if (!existsSync(file)) throw new AppError('CONFIG_MISSING', `No config at ${file}. Run \`cra init\` (or press "Create config" in Settings) first.`);
  const text = readFileSync(file, 'utf8');
  try {
    parseToml(text, file);
  } catch (error) {
    // Editing a file that does not parse could only guess at its layout: refuse, and say why.
    const why = error instanceof AppError ? error.message : String(error);
    throw new AppError('CONFIG_INVALID', `Nothing was saved: ${file} does not parse, so it cannot be edited safely. ${why}`, { cause: error, details: error instanceof AppError ? error.details : undefined });
  }
  const next = editConfigText(text, edits, file);
  validateConfig(parseToml(next, file), file);
  if (next !== text) writeFileAtomic(file, next);
}

function setIn(root: Record<string, unknown>, path: readonly string[], value: unknown): Record<string, unknown> {
  if (value === undefined && getIn(root, path) === undefined) return root;
  const out = { ...root };
  const [head, ...rest] = path;
  if (head === undefined) return out;
  if (rest.length === 0) {
    if (value === undefined) delete out[head];
    else out[head] = structuredClone(value);
    return out;
  }
  const child = getIn(root, [head]);
  out[head] = setIn(typeof child === 'object' && child !== null ? (child as Record<string, unknown>) : {}, rest, value);
  return out;
}
