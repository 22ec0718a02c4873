import { dirOf, joinPath, type FileIndex } from './fileIndex';
import type { ExtractedImport } from './types';

const EXTENSIONS = ['.ts', '.tsx', '.d.ts', '.js', '.jsx', '.mjs', '.cjs', '.mts', '.cts'];
const JS_TO_TS: Record<string, string[]> = {
  '.js': ['.ts', '.tsx'],
  '.jsx': ['.tsx'],
  '.mjs': ['.mts'],
  '.cjs': ['.cts'],
};
const CONFIG_NAMES = ['tsconfig.json', 'jsconfig.json'];

interface PathConfig {
  /** Repo-relative directory that non-relative specifiers resolve from, or null. */
  baseUrl: string | null;
  /** `paths` patterns with targets already made repo-relative. */
  paths: Array<{ pattern: string; targets: string[] }>;
}

/** Parses JSON with comments and trailing commas (tsconfig's JSONC); null when still invalid. */
export function parseJsonc(text: string): unknown {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      out += text.slice(start, i + 1);
    } else if (ch === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
    } else {
      out += ch;
    }
  }
  try {
    return JSON.parse(out.replace(/,(\s*[}\]])/g, '$1'));
  } catch {
    return null;
  }
}

/** Probes a path like TypeScript's bundler resolution: exact, .js→.ts, extensions, index files. */
function probe(index: FileIndex, path: string): string | null {
  const dot = path.lastIndexOf('.');
  const ext = dot > path.lastIndexOf('/') ? path.slice(dot) : '';
  for (const alt of JS_TO_TS[ext] ?? []) {
    const candidate = path.slice(0, dot) + alt;
    if (index.has(candidate)) return candidate;
  }
  if (index.has(path)) return path;
  for (const e of EXTENSIONS) if (index.has(path + e)) return path + e;
  for (const e of EXTENSIONS) if (index.has(`${path}/index${e}`)) return `${path}/index${e}`;
  return null;
}

function readConfig(index: FileIndex, file: string, depth: number): PathConfig {
  const raw = index.readFile(file);
  const json = raw === null ? null : parseJsonc(raw);
  const config: PathConfig = { baseUrl: null, paths: [] };
  if (!json || typeof json !== 'object') return config;
  const { extends: ext, compilerOptions } = json as { extends?: unknown; compilerOptions?: { baseUrl?: unknown; paths?: unknown } };
  if (typeof ext === 'string' && ext.startsWith('.') && depth < 5) {
    const parentPath = joinPath(dirOf(file), ext.endsWith('.json') ? ext : `${ext}.json`);
    if (parentPath !== null && index.has(parentPath)) Object.assign(config, readConfig(index, parentPath, depth + 1));
  }
  const dir = dirOf(file);
  if (typeof compilerOptions?.baseUrl === 'string') config.baseUrl = joinPath(dir, compilerOptions.baseUrl);
  const paths = compilerOptions?.paths;
  if (paths && typeof paths === 'object') {
    const base = config.baseUrl ?? dir;
    config.paths = Object.entries(paths as Record<string, unknown>).map(([pattern, targets]) => ({
      pattern,
      targets: (Array.isArray(targets) ? targets : [])
        .filter((t): t is string => typeof t === 'string')
        .map((t) => joinPath(base, t))
        .filter((t): t is string => t !== null),
    }));
  }
  return config;
}

function matchPattern(pattern: string, specifier: string): string | null {
  const star = pattern.indexOf('*');
  if (star < 0) return pattern === specifier ? '' : null;
  const prefix = pattern.slice(0, star);
  const suffix = pattern.slice(star + 1);
  if (!specifier.startsWith(prefix) || !specifier.endsWith(suffix) || specifier.length < prefix.length + suffix.length) return null;
  return specifier.slice(prefix.length, specifier.length - suffix.length);
}

/** Exact patterns win, then the longest prefix before `*`. */
function prefixLength(pattern: string): number {
  const star = pattern.indexOf('*');
  return star < 0 ? Number.MAX_SAFE_INTEGER : star;
}

function resolveWithConfig(index: FileIndex, config: PathConfig, specifier: string): string | null {
  const matches = config.paths
    .map((p) => ({ p, wild: matchPattern(p.pattern, specifier) }))
    .filter((m): m is { p: PathConfig['paths'][number]; wild: string } => m.wild !== null)
    .sort((a, b) => prefixLength(b.p.pattern) - prefixLength(a.p.pattern));
  for (const { p, wild } of matches) {
    for (const target of p.targets) {
      const found = probe(index, target.replace('*', wild));
      if (found) return found;
    }
  }
  if (config.baseUrl !== null) {
    const path = joinPath(config.baseUrl, specifier);
    if (path !== null) return probe(index, path);
  }
  return null;
}

/** TS/JS: relative specifiers with extension probing, then tsconfig/jsconfig `paths` and `baseUrl`. */
export function createScriptResolver(index: FileIndex): (fromPath: string, imp: ExtractedImport) => string[] {
  const configByDir = new Map<string, PathConfig | null>();
  const configFor = (dir: string): PathConfig | null => {
    const cached = configByDir.get(dir);
    if (cached !== undefined) return cached;
    const file = CONFIG_NAMES.map((n) => (dir ? `${dir}/${n}` : n)).find((f) => index.has(f));
    const config = file ? readConfig(index, file, 0) : dir ? configFor(dirOf(dir)) : null;
    configByDir.set(dir, config);
    return config;
  };
  return (fromPath, imp) => {
    const spec = imp.specifier;
    if (!spec) return [];
    if (spec === '.' || spec === '..' || spec.startsWith('./') || spec.startsWith('../')) {
      const path = joinPath(dirOf(fromPath), spec);
      const found = path === null ? null : probe(index, path);
      return found ? [found] : [];
    }
    if (spec.startsWith('/')) return [];
    const config = configFor(dirOf(fromPath));
    const found = config ? resolveWithConfig(index, config, spec) : null;
    return found ? [found] : [];
  };
}
