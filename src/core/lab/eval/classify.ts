/**
 * How commit mining and the BM25 reference tell source code from tests, docs, CI, lock files and
 * configuration, by path alone. Deliberately conservative: when in doubt a path is not source,
 * so a mined task's gold set only ever names code a retriever should find.
 */

/** File extensions counted as source code. Config formats (json, yaml, toml) are not source. */
const SOURCE_EXTENSIONS = new Set([
  'py', 'pyi', 'pyx', 'js', 'jsx', 'mjs', 'cjs', 'ts', 'tsx', 'mts', 'cts', 'go', 'rs', 'java', 'kt', 'kts', 'scala',
  'rb', 'php', 'c', 'h', 'cc', 'cpp', 'cxx', 'hpp', 'hh', 'cs', 'swift', 'm', 'mm', 'lua', 'sh', 'bash', 'zsh',
  'pl', 'pm', 'r', 'jl', 'ex', 'exs', 'erl', 'hs', 'ml', 'mli', 'clj', 'dart', 'vue', 'svelte', 'sql', 'zig', 'nim',
]);

const TEST_DIR = /(^|\/)(tests?|__tests__|__mocks__|specs?|testing|test_?utils|fixtures|e2e)\//i;
const TEST_FILE = /(^|\/)(test_[^/]*|[^/]*_test\.[a-z]+|[^/]*\.(test|spec)\.[a-z]+|conftest\.py|[^/]*_spec\.rb)$/i;
const DOC_DIR = /(^|\/)(docs?|documentation)\//i;
const DOC_FILE = /\.(md|mdx|rst|txt|adoc|asciidoc|rdoc)$/i;
const META_FILE =
  /(^|\/)(CHANGES|CHANGELOG|HISTORY|NEWS|AUTHORS|CONTRIBUTORS|LICENSE|LICENCE|COPYING|NOTICE|CODEOWNERS)(\.[a-z]+)?$/i;
const CI_PATH =
  /(^|\/)(\.github|\.circleci|\.gitlab|\.azure-pipelines|\.buildkite|\.devcontainer|\.vscode|\.idea)\/|(^|\/)(\.gitlab-ci\.yml|\.travis\.yml|appveyor\.yml|azure-pipelines\.yml|\.pre-commit-config\.yaml|\.editorconfig|\.gitignore|\.gitattributes|\.mailmap|Jenkinsfile)$/i;
const DEPENDENCY_FILE =
  /(^|\/)(package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|poetry\.lock|Pipfile\.lock|uv\.lock|Cargo\.lock|go\.sum|Gemfile\.lock|composer\.lock|requirements[^/]*\.(txt|in)|constraints[^/]*\.txt)$/i;

/** Build and tool configuration written in a code language: not where a task's behaviour lives. */
const TOOL_CONFIG = /(^|\/)([^/]+\.config\.[cm]?[jt]s|\.eslintrc(\.[a-z]+)?|setup\.py|noxfile\.py|[gG]ulpfile\.[cm]?js|Gruntfile\.js)$/;

/** The lower-case extension of a path, without the dot ('' when none). */
function extensionOf(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot <= 0 ? '' : base.slice(dot + 1).toLowerCase();
}

/** True for test code: test folders, test_*.py, *_test.go, *.test.ts, *.spec.js, conftest.py... */
export function isTestPath(path: string): boolean {
  return TEST_DIR.test(path) || TEST_FILE.test(path);
}

/** True for documentation and project metadata (docs/, *.md, *.rst, CHANGELOG, LICENSE...). */
export function isDocPath(path: string): boolean {
  return DOC_DIR.test(path) || DOC_FILE.test(path) || META_FILE.test(path);
}

/** True for CI, editor and repository housekeeping files. */
export function isCiPath(path: string): boolean {
  return CI_PATH.test(path);
}

/** True for lock files and dependency pins. */
export function isDependencyPath(path: string): boolean {
  return DEPENDENCY_FILE.test(path);
}

/** True when the path is code by its extension (tests included), outside docs, CI and vendored folders. */
export function isCodePath(path: string): boolean {
  if (!SOURCE_EXTENSIONS.has(extensionOf(path))) return false;
  if (isDocPath(path) || isCiPath(path) || TOOL_CONFIG.test(path)) return false;
  return !/(^|\/)(node_modules|vendor|third_party|dist|build)\//.test(path) && !/\.min\.js$/i.test(path);
}

/** True for source code a task's answer may name: code that is not a test. */
export function isGoldSourcePath(path: string): boolean {
  return isCodePath(path) && !isTestPath(path);
}

/** Extensions that share one language family: a task in one of them may touch the others. */
const FAMILY_OF_EXTENSION: Record<string, string> = {
  py: 'python', pyi: 'python', pyx: 'python',
  js: 'javascript', jsx: 'javascript', mjs: 'javascript', cjs: 'javascript', ts: 'javascript', tsx: 'javascript',
  mts: 'javascript', cts: 'javascript', vue: 'javascript', svelte: 'javascript',
  c: 'c', h: 'c', cc: 'c', cpp: 'c', cxx: 'c', hpp: 'c', hh: 'c',
  kt: 'kotlin', kts: 'kotlin', m: 'objc', mm: 'objc', sh: 'shell', bash: 'shell', zsh: 'shell',
  pl: 'perl', pm: 'perl', ex: 'elixir', exs: 'elixir', ml: 'ocaml', mli: 'ocaml',
};

/**
 * The language family of a path by its extension (`python`, `javascript` for JS and TS, `c` for
 * C and C++...; the extension itself for other languages, '' for none).
 */
export function languageFamilyOf(path: string): string {
  const ext = extensionOf(path);
  return FAMILY_OF_EXTENSION[ext] ?? ext;
}

/** The language families of a task: those of its gold files. */
export function taskLanguages(gold: readonly string[]): Set<string> {
  return new Set(gold.map(languageFamilyOf).filter(Boolean));
}

/**
 * True for the files a source-only ranking keeps for a task: the files a mined gold file may be
 * ({@link isGoldSourcePath}: no tests, docs, CI or tool configuration) in one of the task's
 * language families.
 */
export function isTaskSourcePath(path: string, languages: ReadonlySet<string>): boolean {
  return isGoldSourcePath(path) && languages.has(languageFamilyOf(path));
}
