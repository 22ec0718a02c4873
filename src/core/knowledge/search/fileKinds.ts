import type { SearchIndex } from '../kb/searchIndex';
import type { ParsedQuery } from './query';
import { KIND_PRIOR } from './rankingConstants';

/**
 * What a file is to code search. `code` is the project's own code, where behaviour lives; the
 * others mention the same words but are rarely what a task needs changed: `docs` (README,
 * changelogs, licences, documentation folders, prose formats), `config` (data and settings formats,
 * CI, lock files), `vendored` (copies of other projects: vendor/, extern/, cextern/, third_party/,
 * _vendor/, node_modules/, minified or bundled files, known library copies such as jquery-3.5.1.js),
 * `generated` (protobuf and other generator output by name), `declarations` (TypeScript .d.ts) and
 * `examples` (examples, playgrounds, samples, demos, fixtures).
 */
export type FileKind = 'code' | 'docs' | 'config' | 'vendored' | 'generated' | 'declarations' | 'examples';

const DOC_LANGUAGES = new Set(['markdown', 'restructuredtext', 'text', 'asciidoc']);
const CONFIG_LANGUAGES = new Set(['json', 'yaml', 'toml', 'ini', 'xml', 'ignore', 'go-module', 'csv']);
const DOC_DIR = /(^|\/)(docs?|documentation)\//i;
const META_NAME = /(^|\/)(readme|changes|changelog|history|news|authors|contributors|contributing|license|licence|copying|notice|codeowners|security|code_of_conduct)(\.(md|mdx|markdown|rst|txt|adoc|asciidoc|rdoc))?$/i;
const DOC_EXTENSION = /\.(md|mdx|markdown|rst|txt|adoc|asciidoc|rdoc)$/i;
const CONFIG_DIR = /(^|\/)(\.github|\.circleci|\.gitlab|\.azure-pipelines|\.buildkite|\.devcontainer|\.vscode|\.idea)\//i;
const LOCK_FILE = /(^|\/)(package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|poetry\.lock|Pipfile\.lock|uv\.lock|Cargo\.lock|go\.sum|Gemfile\.lock|composer\.lock)$/i;
const VENDORED =
  /(^|\/)(vendor|vendored|_vendor|extern|cextern|third_party|third-party|thirdparty|bower_components|node_modules)\/|\.min\.(js|css)$|[.-]bundle\.js$|(^|\/)jquery[\w.-]*\.js$|(^|\/)(underscore|lodash|backbone|bootstrap|d3|moment|require|modernizr|popper|mathjax)[-.]\d[\w.-]*\.js$/i;
const GENERATED = /_pb2(_grpc)?\.pyi?$|\.pb\.go$|(^|\/)(__generated__|generated)\/|[._]generated\.[a-z]+$/i;
const DECLARATIONS = /\.d\.[cm]?ts$/i;
const EXAMPLES = /(^|\/)(examples?|playgrounds?|samples?|demos?|fixtures|docs_src)\//i;

/** The kind of a file from its path and the language the indexer recorded. */
export function fileKindOf(path: string, language: string): FileKind {
  // Vendored code only: data, settings and prose files stay config and docs wherever they are. A
  // vendored package.json named by a task ("add a field to package.json") is config the query
  // names; as vendored code, whole-file BM25 ranked each of eslint's five fixture node_modules/
  // package.json first and eslint's R@5 fell .933 → .908 in `cra eval --commits 40`.
  if (VENDORED.test(path) && !CONFIG_LANGUAGES.has(language) && !DOC_LANGUAGES.has(language) && !DOC_EXTENSION.test(path)) return 'vendored';
  if (DOC_DIR.test(path) || META_NAME.test(path) || DOC_EXTENSION.test(path) || DOC_LANGUAGES.has(language)) return 'docs';
  if (CONFIG_DIR.test(path) || LOCK_FILE.test(path) || CONFIG_LANGUAGES.has(language)) return 'config';
  if (GENERATED.test(path)) return 'generated';
  if (DECLARATIONS.test(path)) return 'declarations';
  if (EXAMPLES.test(path)) return 'examples';
  return 'code';
}

/** Query words that ask for documentation. */
const DOC_WORDS = /^(docs?|documentation|documented|readme|changelog|license|licence|contributing|markdown|md|mdx|rst|sphinx)$/i;
/** Query words that ask for the other kinds (`d.ts` is read as the parts d and ts). */
const KIND_WORDS: ReadonlyArray<[RegExp, Exclude<FileKind, 'code' | 'docs' | 'config'>]> = [
  [/^(vendor|vendored|vendoring|extern|cextern|thirdparty|bundled|minified)$/i, 'vendored'],
  [/^(generated|generator|codegen|protobuf|pb2)$/i, 'generated'],
  [/^(declaration|declarations|typings|dts)$/i, 'declarations'],
  [/^(examples?|playgrounds?|samples?|demos?|fixtures?)$/i, 'examples'],
];
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
      for (const [pattern, kind] of KIND_WORDS) if (pattern.test(part)) kinds.add(kind);
      if (TOOL_WORDS.test(part)) {
        tools.add(part.toLowerCase());
        if (KIND_PRIOR.toolWordAsksConfig) kinds.add('config');
      }
    }
    if (trimmed.length >= 3) names.add(trimmed.toLowerCase());
    if (/\.d\.[cm]?ts$/i.test(trimmed)) kinds.add('declarations');
  }
  return { kinds, names, tools };
}

/**
 * A score multiplier per file for the query: 1 for code, for files of a kind the query asks about
 * ("docs", "readme", "yaml", "vendored", "example", ...) and for files it names (`README.md`, or
 * `readme` alone); {@link KIND_PRIOR}.unwanted for the other files of every other kind. Cached per call.
 */
export function kindPrior(index: SearchIndex, query: ParsedQuery): (fileId: number) => number {
  const demoted = demotedKind(index, query);
  return (fileId) => (demoted(fileId) === undefined ? 1 : KIND_PRIOR.unwanted);
}

/**
 * The kind of a file that {@link kindPrior} ranks below the project's code for this query, or
 * undefined when it is not demoted (code, a kind the query asks for, a file it names). Cached per call.
 */
export function demotedKind(index: SearchIndex, query: ParsedQuery): (fileId: number) => Exclude<FileKind, 'code'> | undefined {
  const intent = fileIntentOf(query);
  const cache = new Map<number, Exclude<FileKind, 'code'> | null>();
  return (fileId) => {
    let kind = cache.get(fileId);
    if (kind === undefined) {
      const file = index.pathAndLanguage(fileId);
      kind = file ? demotedKindOf(file.path, file.language, intent) : null;
      cache.set(fileId, kind);
    }
    return kind ?? undefined;
  };
}

function demotedKindOf(path: string, language: string, intent: QueryFileIntent): Exclude<FileKind, 'code'> | null {
  const kind = fileKindOf(path, language);
  // Declarations are not demoted: eslint's lib/types/*.d.ts are its published types, changed with
  // its rules; demoted, eslint's R@10 fell .954 → .933 (`cra eval --commits 40`). A declaration
  // loses instead the definition bonus of names code defines too (graph.ts).
  if (kind === 'code' || kind === 'declarations' || intent.kinds.has(kind) || namedByQuery(path, intent)) return null;
  return kind;
}

/** True when the query names the file: its file name (`README.md`, `readme` alone) or a tool it is named after (`.eslintrc.json`). */
export function namedByQuery(path: string, intent: QueryFileIntent): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  const stem = base.includes('.') ? base.slice(0, base.lastIndexOf('.')) : base;
  if (intent.names.has(base) || (NAMED_BY_STEM.has(stem) && intent.names.has(stem))) return true;
  for (const tool of intent.tools) if (base.includes(tool)) return true;
  return false;
}
