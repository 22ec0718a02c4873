import { existsSync, readFileSync, statSync } from 'node:fs';
import { parse, TomlError } from 'smol-toml';
import type { z } from 'zod';
import { AppError, PARSE_ONCE } from '../../../shared/contract';
import { configSchema, type ConfigValues } from './schema';
import { keyLineOf } from './tomlEdit';
import { userConfigPath } from '../layout';

/** A validated config and where it came from. */
export interface LoadedConfig {
  values: ConfigValues;
  /** The files that were read, user-level first, the overriding repository file last. */
  files: string[];
  /** The file edits go to by default (the most specific one that exists, else the user-level path). */
  primaryFile: string;
}

type Raw = Record<string, unknown>;

/** Parse TOML text into plain objects; a syntax error names the file, line and column. */
export function parseToml(text: string, file: string): Raw {
  try {
    return toPlain(parse(text)) as Raw;
  } catch (error) {
    if (error instanceof TomlError) {
      const lineText = (text.split('\n')[error.line - 1] ?? '').trim().slice(0, 80);
      const reads = lineText ? `; line ${error.line} reads \`${lineText}\`` : '';
      throw new AppError('CONFIG_INVALID', `${file}:${error.line}:${error.column}: not valid TOML (${firstLine(error.message).replace(/^Invalid TOML document: /, '')}${reads}). Fix the file by hand or run \`cra init --force\` to start over.`, {
        cause: error,
        details: { file, line: error.line, column: error.column },
      });
    }
    throw error;
  }
}

/** Read and parse one TOML file; undefined when it does not exist. */
export function readTomlFile(file: string): Raw | undefined {
  return readTomlText(file)?.raw;
}

function readTomlText(file: string): { raw: Raw; text: string } | undefined {
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, 'utf8');
  return { raw: parseToml(text, file), text };
}

/**
 * Validate raw values; an invalid value names the key, the value and what is allowed. Given the
 * file's text, the message starts with `file:line:` of the offending key (the line an editor jumps to).
 */
export function validateConfig(raw: Raw, label: string, text?: string): ConfigValues {
  const result = configSchema.safeParse(raw, PARSE_ONCE);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (!issue) throw new AppError('CONFIG_INVALID', `${label}: invalid config.`);
  const path = issue.path.map(String);
  const keyPath = issue.code === 'unrecognized_keys' ? [...path, issue.keys[0] ?? ''] : path;
  const line = text === undefined ? undefined : keyLineOf(text, keyPath);
  const where = line === undefined ? label : `${label}:${line}`;
  throw new AppError('CONFIG_INVALID', describeIssue(issue, raw, where), {
    details: { file: label, ...(line !== undefined ? { line } : {}), key: keyPath.join('.'), issues: result.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })) },
  });
}

/**
 * Load the user-level config, overridden key by key by a repository's config when given. Each
 * file is validated alone first so an invalid value names its own file.
 */
export function loadConfig(options: { userFile: string; repoFile?: string }): LoadedConfig {
  const files: string[] = [];
  let merged: Raw = {};
  for (const file of [options.userFile, options.repoFile]) {
    if (!file) continue;
    const read = readTomlText(file);
    if (!read) continue;
    validateConfig(read.raw, file, read.text);
    merged = deepMerge(merged, read.raw);
    files.push(file);
  }
  const values = validateConfig(merged, files.join(' + ') || options.userFile);
  const primaryFile = options.repoFile && files.includes(options.repoFile) ? options.repoFile : options.userFile;
  return { values, files, primaryFile };
}

const userConfigCache = new Map<string, { stamp: string; config: LoadedConfig }>();

/**
 * The user-level config for reads on every request (search): re-read and re-validated only when
 * the file changes (one stat per call). Errors are not cached, so a fixed file is picked up at once.
 */
export function loadUserConfigCached(dataDir: string): LoadedConfig {
  const file = userConfigPath(dataDir);
  const stats = statSync(file, { throwIfNoEntry: false });
  const stamp = stats ? `${stats.ino}:${stats.size}:${stats.mtimeMs}` : 'missing';
  const hit = userConfigCache.get(file);
  if (hit?.stamp === stamp) return hit.config;
  const config = loadConfig({ userFile: file });
  userConfigCache.set(file, { stamp, config });
  return config;
}

/** The config's defaults, for readers that must go on when the user's file is invalid. */
export function defaultConfigValues(): ConfigValues {
  return validateConfig({}, 'defaults');
}

/** Merge `over` into `base`: tables merge key by key, everything else replaces. */
export function deepMerge(base: Raw, over: Raw): Raw {
  const out: Raw = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const prev = out[key];
    out[key] = isTable(prev) && isTable(value) ? deepMerge(prev, value) : value;
  }
  return out;
}

function describeIssue(issue: z.core.$ZodIssue, raw: Raw, label: string): string {
  const path = issue.path.map(String);
  const key = path.length > 1 ? `[${path.slice(0, -1).join('.')}].${path[path.length - 1]}` : `[${path[0] ?? ''}]`;
  if (issue.code === 'unrecognized_keys') {
    const where = path.length ? `[${path.join('.')}]` : 'the top level';
    return `${label}: unknown key ${issue.keys.map((k) => `"${k}"`).join(', ')} in ${where}. Check the spelling; see the commented template written by \`cra init\`.`;
  }
  const value = getIn(raw, path);
  const shown = value === undefined ? 'missing' : JSON.stringify(value);
  return `${label}: ${key} = ${shown} is not allowed: ${issue.message.replace(/\.$/, '')}. Fix it in the file or on the Settings page.`;
}

/** The value at a key path of nested tables, or undefined. */
export function getIn(raw: unknown, path: readonly string[]): unknown {
  let cur: unknown = raw;
  for (const key of path) {
    if (!isTable(cur)) return undefined;
    cur = cur[key];
  }
  return cur;
}

function isTable(value: unknown): value is Raw {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** smol-toml returns null-prototype objects and its own date classes; convert to plain JSON-able values. */
function toPlain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toPlain);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'object' && value !== null) {
    const out: Raw = {};
    for (const [k, v] of Object.entries(value)) out[k] = toPlain(v);
    return out;
  }
  return value;
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}
