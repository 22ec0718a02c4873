import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchResult } from '../../../shared/contract/search';
import { openDatabase, type Db } from '../../platform/db/open';
import { overrideRanking, type RankingOverrides } from './rankingConstants';
import { searchRepository } from './search';
import { parseQuery } from './query';
import { makeIndexedRepo } from '../../testing/searchRepo';

// The code a report is about (web/sessions.py, the session middleware) and the router its pasted
// traceback walks through: the traceback's frames and error line repeat the router's words.
const FILES: Record<string, string> = {
  'web/__init__.py': '',
  ...Object.fromEntries(
    ['templates', 'forms', 'mail', 'cache', 'static', 'auth'].map((name) => [
      `web/${name}.py`,
      `def ${name}_config(settings):\n    \"\"\"The ${name} settings of an application.\"\"\"\n    return settings.get("${name}", {})\n`,
    ]),
  ),
  'web/sessions.py': `class SessionMiddleware:
    """Keeps a signed session cookie for every connection."""

    def __init__(self, app, secret_key):
        self.app = app
        self.secret_key = secret_key

    def __call__(self, scope):
        cookie = scope["headers"].get("cookie")
        scope["session"] = self.load_session(cookie)
        return self.app(scope)

    def load_session(self, cookie):
        return {} if cookie is None else decode_signed(cookie, self.secret_key)


def decode_signed(cookie, secret_key):
    return {"cookie": cookie, "key": secret_key}
`,
  'web/routing.py': `class Router:
    """Dispatches a connection scope to the route that matches its path."""

    def __init__(self, routes):
        self.routes = routes

    def __call__(self, scope):
        route = self.match(scope)
        assert scope["type"] in ("http", "stream"), "unknown scope type"
        return route(scope)

    def match(self, scope):
        for route in self.routes:
            if route.path == scope["path"]:
                return route
        raise LookupError(scope["path"])
`,
};

/** A bug report: its title names the session cookie, its traceback walks through the router. */
const REPORT = [
  'Session cookie triggers failure on websocket upgrade',
  '',
  'When I enable it, every websocket connection fails: no route for its scope path.',
  '',
  '```',
  'Traceback (most recent call last):',
  '  File "site-packages/server/protocols.py", line 146, in run_asgi',
  '    result = self.app(self.scope)',
  'AssertionError: unknown scope type for the route',
  '```',
].join('\n');

let db: Db;

beforeAll(async () => {
  const { curatedFile } = await makeIndexedRepo(FILES);
  db = openDatabase(curatedFile, { readOnly: true });
});

afterAll(() => db?.close());

async function search(query: string, overrides: RankingOverrides = {}): Promise<string[]> {
  const restore = overrideRanking(overrides);
  try {
    return (await searchRepository(db, query, { limit: 20, mode: 'keyword' })).map((r: SearchResult) => r.path);
  } finally {
    restore();
  }
}

describe("an issue's title counts again (issue #27, item 7)", () => {
  it('parses the first line of an issue-shaped text alone, and of no other text', () => {
    const parsed = parseQuery(REPORT);
    expect(parsed.issueShaped).toBe(true);
    expect(parsed.title?.terms).toEqual(expect.arrayContaining(['session', 'cookie', 'websocket', 'upgrade']));
    expect(parsed.title?.issueShaped).toBe(false);
    // A commit message's subject line is not a report's title: the text is not issue-shaped.
    expect(parseQuery('Fix session cookie on websocket upgrade\n\nThe middleware skipped non-http scopes.').title).toBeUndefined();
    expect(parseQuery('session cookie on websocket upgrade').title).toBeUndefined();
  });

  it('ranks the code the title names above the code the traceback walks through', async () => {
    expect((await search(REPORT)).slice(0, 2)).toEqual(['web/sessions.py', 'web/routing.py']);
    // Without the title's own ranking the traceback's words win.
    expect((await search(REPORT, { ISSUE_SHAPED: { titleText: 0 } })).slice(0, 2)).toEqual(['web/routing.py', 'web/sessions.py']);
  });
});
