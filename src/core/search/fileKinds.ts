import type { SearchIndex } from '../kb/searchIndex';
import type { ParsedQuery } from './query';
import { KIND_PRIOR } from './rankingConstants';

/**
 * What a file is to code search. `code` is where behaviour lives; `docs` (README, changelogs,
 * documentation folders, prose formats) and `config` (data and settings formats, CI, lock files)
 * mention the same words as the code but are rarely what a task needs changed.
 */
export type FileKind = 'code' | 'docs' | 'config';

const DOC_LANGUAGES = new Set(['markdown', 'restructuredtext', 'text', 'asciidoc']);
const CONFIG_LANGUAGES = new Set(['json', 'yaml', 'toml', 'ini', 'xml', 'ignore', 'go-module', 'csv']);
const DOC_DIR = /(^|\/)(docs?|documentation)\//i;
const META_NAME = /(^|\/)(readme|changes|changelog|history|news|authors|contributors|contributing|license|licence|copying|notice|codeowners|security|code_of_conduct)(\.(md|mdx|markdown|rst|txt|adoc|asciidoc|rdoc))?$/i;
const DOC_EXTENSION = /\.(md|mdx|markdown|rst|txt|adoc|asciidoc|rdoc)$/i;
const CONFIG_DIR = /(^|\/)(\.github|\.circleci|\.gitlab|\.azure-pipelines|\.buildkite|\.devcontainer|\.vscode|\.idea)\//i;
const LOCK_FILE = /(^|\/)(package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|poetry\.lock|Pipfile\.lock|uv\.lock|Cargo\.lock|go\.sum|Gemfile\.lock|composer\.lock)$/i;

/** The kind of a file from its path and the language the indexer recorded. */
export function fileKindOf(path: string, language: string): FileKind {
  if (DOC_DIR.test(path) || META_NAME.test(path) || DOC_EXTENSION.test(path) || DOC_LANGUAGES.has(language)) return 'docs';
  if (CONFIG_DIR.test(path) || LOCK_FILE.test(path) || CONFIG_LANGUAGES.has(language)) return 'config';
  return 'code';
}

/** Query words that ask for documentation. */
const DOC_WORDS = /^(docs?|documentation|documented|readme|changelog|license|licence|contributing|markdown|md|mdx|rst|sphinx)$/i;
/** Query words that ask for configuration, CI or packaging. */
const CONFIG_WORDS = /^(config|configuration|ci|workflows?|json|yaml|yml|toml|ini|lockfile)$/i;
/**
 * Names of tools whose configuration files carry the name (`.eslintrc.json`, `tsconfig.json`): the
 * word asks for those files only. As a kind word, "eslint" made every config file wanted in the
 * eslint repository, whose task texts name it all the time.
 */
const TOOL_WORDS = /^(eslint|prettier|tsconfig|pyproject|tox|dockerfile|babel|jest|vitest|webpack|rollup|vite|docker|mypy|ruff|flake8|pytest|setup)$/i;
/** Names of project files that the bare word names (`readme` → README.rst); others need the full file name. */
const NAMED_BY_STEM = new Set(['readme', 'changelog', 'license', 'licence', 'contributing', 'authors', 'codeowners', 'copying']);

/** What a query says about non-code files: the kinds it asks for and the file names it spells out. */
export interface QueryFileIntent {
  kinds: Set<Exclude<FileKind, 'code'>>;
  /** Lower-cased file names written in the query (`readme.md`, `package.json`, `readme`). */
  names: Set<string>;
  /** Lower-cased tool names of the query: a docs or config file whose name contains one is wanted. */
  tools: Set<string>;
}

/** Read the query for words that make documentation or configuration files wanted. */
export function fileIntentOf(query: ParsedQuery): QueryFileIntent {
  const kinds = new Set<Exclude<FileKind, 'code'>>();
  const names = new Set<string>();
  const tools = new Set<string>();
  for (const word of query.text.match(/[A-Za-z0-9_.-]+/g) ?? []) {
    const trimmed = word.replace(/^[.-]+|[.-]+$/g, '');
    for (const part of trimmed.split(/[._-]/)) {
      if (DOC_WORDS.test(part)) kinds.add('docs');
      if (CONFIG_WORDS.test(part)) kinds.add('config');
      if (TOOL_WORDS.test(part)) {
        tools.add(part.toLowerCase());
        if (KIND_PRIOR.toolWordAsksConfig) kinds.add('config');
      }
    }
    if (trimmed.length >= 3) names.add(trimmed.toLowerCase());
  }
  return { kinds, names, tools };
}

/**
 * A score multiplier per file for the query: 1 for code, for files of a kind the query asks about
 * ("docs", "readme", "yaml", ...) and for files it names (`README.md`, or `readme` alone);
 * {@link KIND_PRIOR}.unwanted for the other documentation and configuration files. Cached per call.
 */
export function kindPrior(index: SearchIndex, query: ParsedQuery): (fileId: number) => number {
  const intent = fileIntentOf(query);
  const cache = new Map<number, number>();
  return (fileId) => {
    let prior = cache.get(fileId);
    if (prior === undefined) {
      const file = index.pathAndLanguage(fileId);
      prior = file ? priorOf(file.path, file.language, intent) : 1;
      cache.set(fileId, prior);
    }
    return prior;
  };
}

function priorOf(path: string, language: string, intent: QueryFileIntent): number {
  const kind = fileKindOf(path, language);
  if (kind === 'code' || intent.kinds.has(kind) || namedByQuery(path, intent)) return 1;
  return KIND_PRIOR.unwanted;
}

/** True when the query names the file: its file name (`README.md`, `readme` alone) or a tool it is named after (`.eslintrc.json`). */
export function namedByQuery(path: string, intent: QueryFileIntent): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  const stem = base.includes('.') ? base.slice(0, base.lastIndexOf('.')) : base;
  if (intent.names.has(base) || (NAMED_BY_STEM.has(stem) && intent.names.has(stem))) return true;
  for (const tool of intent.tools) if (base.includes(tool)) return true;
  return false;
}
