import { createTestRepo } from './gitRepo';

/**
 * Test support: builds a small Python project with a known history, so mining, the evaluation run
 * and the app page can be checked against exact expectations. Every commit has a fixed date, so
 * `git log` order is the order below. The commits that must become tasks are marked in FIXTURE_TASKS.
 */

const BASE: Record<string, string> = {
  'src/app/server.py': `"""HTTP request handling."""\n\ndef parse_request(raw):\n    head, _, body = raw.partition("\\n\\n")\n    headers = dict(line.split(": ", 1) for line in head.splitlines()[1:])\n    length = int(headers["Content-Length"])\n    return headers, body[:length]\n`,
  'src/app/routing.py': `"""URL routing."""\n\nROUTES = {}\n\ndef route(path):\n    def register(handler):\n        ROUTES[path] = handler\n        return handler\n    return register\n\ndef dispatch(path):\n    return ROUTES[path]\n`,
  'src/app/auth.py': `"""Session authentication with signed tokens."""\n\ndef verify_session_token(token, secret):\n    payload, _, signature = token.rpartition(".")\n    return sign(payload, secret) == signature\n\ndef sign(payload, secret):\n    return str(hash((payload, secret)))\n`,
  'src/app/cache.py': `"""A small in-memory cache."""\n\nclass Cache:\n    def __init__(self):\n        self.store = {}\n\n    def get(self, key):\n        return self.store.get(key)\n`,
  'src/app/util.py': `"""Helpers for headers and cookies."""\n\ndef parse_cookie(header):\n    pairs = [part.strip().split("=", 1) for part in header.split(";") if "=" in part]\n    return {key: value for key, value in pairs}\n`,
  'src/app/config.py': `"""Settings."""\n\nSECRET = "change-me"\nDEBUG = False\n`,
  'src/app/logging_setup.py': `"""Logger configuration."""\n\nimport logging\n\nlog = logging.getLogger("app")\n`,
  'tests/test_server.py': `from app.server import parse_request\n\ndef test_parse():\n    assert parse_request("GET /\\nContent-Length: 2\\n\\nhi")[1] == "hi"\n`,
  'README.md': '# app\n\nA tiny web framework.\n',
  'pyproject.toml': '[project]\nname = "app"\nversion = "1.1.0"\n',
};

/** One step of the fixture history. */
interface Step {
  message: string;
  write?: Record<string, string>;
  /** Run on a side branch and merge it back with --no-ff. */
  branch?: string;
}

const LOGGER_FILES = ['server', 'routing', 'auth', 'cache', 'util', 'config'].map((m) => `src/app/${m}.py`);

const STEPS: Step[] = [
  { message: 'Initial import', write: BASE },
  {
    message: 'Handle a missing Content-Length header when parsing a request body',
    write: {
      'src/app/server.py': BASE['src/app/server.py']!.replace('int(headers["Content-Length"])', 'int(headers.get("Content-Length", len(body)))'),
      'tests/test_server.py': BASE['tests/test_server.py']! + '\ndef test_no_length():\n    assert parse_request("GET /\\n\\nhi")[1] == "hi"\n',
    },
  },
  { message: 'Update installation docs', write: { 'README.md': '# app\n\nInstall with pip.\n', 'docs/install.md': '# Install\n\npip install app\n' } },
  { message: 'Release 1.2.0', write: { 'pyproject.toml': '[project]\nname = "app"\nversion = "1.2.0"\n', 'CHANGELOG.md': '## 1.2.0\n' } },
  {
    message: 'Reject expired session tokens during authentication (#42)\n\nTokens now carry an expiry time.\n\nSigned-off-by: Dev <dev@example.com>',
    write: {
      'src/app/auth.py': BASE['src/app/auth.py']!.replace('return sign(payload, secret) == signature', 'return sign(payload, secret) == signature and not expired(payload)') + '\ndef expired(payload):\n    return False\n',
      'src/app/config.py': BASE['src/app/config.py']! + 'TOKEN_EXPIRY_SECONDS = 3600\n',
    },
  },
  { message: 'Revert "Reject expired session tokens during authentication"\n\nThis reverts commit 0123456789abcdef.', write: { 'src/app/auth.py': BASE['src/app/auth.py']! } },
  {
    message: 'Cache route lookups so dispatch does not search the table twice',
    branch: 'feature',
    write: {
      'src/app/routing.py': BASE['src/app/routing.py']!.replace('return ROUTES[path]', 'return CACHE.get(path) or ROUTES[path]'),
      'src/app/cache.py': BASE['src/app/cache.py']! + '\n    def put(self, key, value):\n        self.store[key] = value\n',
    },
  },
  {
    message: 'Use the shared logger in every module',
    write: Object.fromEntries(LOGGER_FILES.map((f) => [f, `from app.logging_setup import log\n${BASE[f]!}`])),
  },
  {
    message: 'Add a rate limiter to the server',
    write: { 'src/app/ratelimit.py': '"""Token bucket rate limiting."""\n\nclass RateLimiter:\n    pass\n', 'src/app/server.py': `from app.ratelimit import RateLimiter\n${BASE['src/app/server.py']!}` },
  },
  { message: 'Fix typo in the cookie error message', write: { 'src/app/util.py': `# cookie helpers\n${BASE['src/app/util.py']!}` } },
  { message: 'Bump version to 1.3.0', write: { 'pyproject.toml': '[project]\nname = "app"\nversion = "1.3.0"\n' } },
  {
    message: 'Fix cookie parsing for quoted values (GH-77)\n\nQuoted cookie values keep their content without the quotes.\nSee https://example.com/issues/77\n\nCo-authored-by: Other <other@example.com>',
    write: { 'src/app/util.py': BASE['src/app/util.py']!.replace('{key: value', '{key: value.strip(\'"\')') },
  },
  // Shares no word with any file: every method must miss it.
  { message: 'Quieter output by default', write: { 'src/app/logging_setup.py': `${BASE['src/app/logging_setup.py']!}log.setLevel(logging.WARNING)\n` } },
];

/** A task whose words appear in no file: nothing can rank its gold file. */
export const FIXTURE_MISS = 'Quieter output by default';

/** The tasks mining must find in the fixture, newest first: subject of the commit → gold files. */
export const FIXTURE_TASKS: Array<{ task: string; gold: string[] }> = [
  { task: FIXTURE_MISS, gold: ['src/app/logging_setup.py'] },
  { task: 'Fix cookie parsing for quoted values\n\nQuoted cookie values keep their content without the quotes.', gold: ['src/app/util.py'] },
  { task: 'Cache route lookups so dispatch does not search the table twice', gold: ['src/app/cache.py', 'src/app/routing.py'] },
  { task: 'Reject expired session tokens during authentication\n\nTokens now carry an expiry time.', gold: ['src/app/auth.py', 'src/app/config.py'] },
  { task: 'Handle a missing Content-Length header when parsing a request body', gold: ['src/app/server.py'] },
];

/** A file the history adds late: no task whose parent precedes it may ever rank it. */
export const FIXTURE_LATE_FILE = 'src/app/ratelimit.py';

/** Create the fixture repository in `dir` (emptied first). Returns `dir`. */
export function buildFixtureRepo(dir: string): string {
  const repo = createTestRepo({ dir, author: { name: 'Fixture', email: 'fixture@example.com' } });
  STEPS.forEach((step, i) => {
    const date = `2024-01-01T00:${String(i * 2).padStart(2, '0')}:00Z`;
    if (step.branch) repo.branch(step.branch);
    repo.writeFiles(step.write ?? {});
    repo.commit(step.message, date);
    if (step.branch) {
      const mergeDate = `2024-01-01T00:${String(i * 2 + 1).padStart(2, '0')}:00Z`;
      repo.checkout('main');
      repo.merge(step.branch, `Merge branch '${step.branch}'`, mergeDate);
    }
  });
  return dir;
}
