import type { ParsedLanguage } from './types';

const PARSED: Record<string, ParsedLanguage> = {
  py: 'python',
  pyi: 'python',
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'tsx',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  go: 'go',
  java: 'java',
  cs: 'csharp',
  rs: 'rust',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  cxx: 'cpp',
  hpp: 'cpp',
  hh: 'cpp',
  hxx: 'cpp',
};

const TEXT: Record<string, string> = {
  md: 'markdown',
  markdown: 'markdown',
  mdx: 'markdown',
  rst: 'restructuredtext',
  txt: 'text',
  json: 'json',
  jsonc: 'json',
  json5: 'json',
  yaml: 'yaml',
  yml: 'yaml',
  toml: 'toml',
  ini: 'ini',
  cfg: 'ini',
  conf: 'ini',
  sh: 'shell',
  bash: 'shell',
  zsh: 'shell',
  fish: 'shell',
  ps1: 'powershell',
  bat: 'batch',
  cmd: 'batch',
  html: 'html',
  htm: 'html',
  xml: 'xml',
  svg: 'xml',
  css: 'css',
  scss: 'scss',
  sass: 'scss',
  less: 'less',
  sql: 'sql',
  rb: 'ruby',
  php: 'php',
  kt: 'kotlin',
  kts: 'kotlin',
  swift: 'swift',
  scala: 'scala',
  lua: 'lua',
  r: 'r',
  pl: 'perl',
  pm: 'perl',
  m: 'objective-c',
  mm: 'objective-cpp',
  dart: 'dart',
  ex: 'elixir',
  exs: 'elixir',
  erl: 'erlang',
  hs: 'haskell',
  ml: 'ocaml',
  zig: 'zig',
  vue: 'vue',
  svelte: 'svelte',
  proto: 'protobuf',
  graphql: 'graphql',
  gql: 'graphql',
  tf: 'terraform',
  cmake: 'cmake',
  mk: 'makefile',
  gradle: 'groovy',
  groovy: 'groovy',
  csv: 'csv',
  tsv: 'csv',
};

const BY_NAME: Record<string, string> = {
  makefile: 'makefile',
  gnumakefile: 'makefile',
  dockerfile: 'dockerfile',
  'cmakelists.txt': 'cmake',
  '.gitignore': 'ignore',
  '.dockerignore': 'ignore',
  '.editorconfig': 'ini',
  'go.mod': 'go-module',
  'go.sum': 'text',
  license: 'text',
  readme: 'text',
};

function baseName(path: string): string {
  const slash = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return path.slice(slash + 1);
}

function extensionOf(path: string): string {
  const base = baseName(path);
  const dot = base.lastIndexOf('.');
  return dot <= 0 ? '' : base.slice(dot + 1).toLowerCase();
}

/** The tree-sitter language a file is parsed with, by extension; null for text-only files. */
export function detectLanguage(path: string): ParsedLanguage | null {
  return PARSED[extensionOf(path)] ?? null;
}

/**
 * A display language for every file: the parsed language (`python`, `typescript`, `tsx`,
 * `javascript`, ...) or a text language (`markdown`, `json`, `yaml`, `toml`, `shell`, `html`,
 * `css`, ...); `text` when nothing more specific is known.
 */
export function textLanguageOf(path: string): string {
  const parsed = detectLanguage(path);
  if (parsed) return parsed;
  const base = baseName(path).toLowerCase();
  const byName = BY_NAME[base];
  if (byName) return byName;
  if (base.startsWith('dockerfile')) return 'dockerfile';
  return TEXT[extensionOf(path)] ?? 'text';
}
