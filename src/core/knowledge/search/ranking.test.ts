import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../platform/db/open';
import { fileBm25, stemmedWords } from './fileBm25';
import { fileIntentOf, fileKindOf } from './fileKinds';
import { parseQuery } from './query';
import { searchRepository } from './search';
import { makeIndexedRepo } from '../../testing/searchRepo';

const RETRY = `"""Retry failed requests with a backoff."""


def compute_backoff(attempt, base):
    """Exponential backoff delay for a retry attempt."""
    return base * 2 ** attempt


def should_retry(status):
    return status in (429, 502, 503)
`;
// Prose that mentions the same words more often than the code does.
const README = `# Retrying

Retry with backoff: every retry waits a backoff delay. The backoff delay of a retry attempt
doubles; see compute backoff. Retry, retry, backoff, backoff, delay, attempt.
`;
const CHANGES = `Version 2.0
-----------

- Retry backoff delay is exponential now: the retry attempt doubles the backoff delay.
`;
const SETTINGS = `{"retry": {"backoff": 2, "delay": 1, "attempt": 5}}
`;
// Many functions, each using "session" once: chunk BM25 finds one chunk, whole-file BM25 the file.
const SESSION = Array.from({ length: 6 }, (_, i) => `def step_${i}(session):\n    return session.cookies.get(${i})\n`).join('\n\n');
const LIMITS = `def pause(response):
    """Sleep when the server says the rate limit was exceeded."""
    return response.headers.get("Retry-After")
`;
const RATE_DOC = `# Rate limits

When the rate limit is exceeded the server asks the client to sleep. A rate limit can be
exceeded by bursts; after the limit is exceeded, sleep for the time the server names.
`;
const CLIENT = `def open_client(url):
    """Open a client for the url; cookies are kept elsewhere."""
    return url
`;

let db: Db;

beforeAll(async () => {
  const { curatedFile } = await makeIndexedRepo({
    'net/retry.py': RETRY,
    'net/session.py': SESSION,
    'net/client.py': CLIENT,
    'net/limits.py': LIMITS,
    'docs/rate-limits.md': RATE_DOC,
    'README.md': README,
    'CHANGES.rst': CHANGES,
    'config/settings.json': SETTINGS,
  });
  db = openDatabase(curatedFile, { readOnly: true });
});

afterAll(() => db?.close());

describe('file kinds', () => {
  it('tells code from documentation and configuration by path and language', () => {
    expect(fileKindOf('net/retry.py', 'python')).toBe('code');
    expect(fileKindOf('src/werkzeug/security.py', 'python')).toBe('code');
    expect(fileKindOf('README.md', 'markdown')).toBe('docs');
    expect(fileKindOf('CHANGES', 'text')).toBe('docs');
    expect(fileKindOf('docs/conf.py', 'python')).toBe('docs');
    expect(fileKindOf('package.json', 'json')).toBe('config');
    expect(fileKindOf('.github/workflows/test.yml', 'yaml')).toBe('config');
  });

  it('reads which non-code files a query asks for', () => {
    expect([...fileIntentOf(parseQuery('fix the retry backoff')).kinds]).toEqual([]);
    expect([...fileIntentOf(parseQuery('document the backoff in the docs')).kinds]).toEqual(['docs']);
    expect([...fileIntentOf(parseQuery('bump the yaml workflow')).kinds]).toEqual(['config']);
    expect(fileIntentOf(parseQuery('update package.json scripts')).names.has('package.json')).toBe(true);
  });
});

describe('ranking of code over prose', () => {
  it('puts the code that defines the words above docs that mention them more often', async () => {
    const paths = (await searchRepository(db, 'retry attempt backoff delay', { mode: 'keyword' })).map((r) => r.path);
    expect(paths[0]).toBe('net/retry.py');
    expect(paths).toContain('README.md');
    expect(paths.indexOf('README.md')).toBeGreaterThan(paths.indexOf('net/retry.py'));
    expect(paths.indexOf('CHANGES.rst')).toBeGreaterThan(paths.indexOf('net/retry.py'));
    expect(paths.indexOf('config/settings.json')).toBeGreaterThan(paths.indexOf('net/retry.py'));
  });

  it('ranks a docs page that repeats the words below the code that does it', async () => {
    const paths = (await searchRepository(db, 'sleep when the rate limit is exceeded', { mode: 'keyword' })).map((r) => r.path);
    expect(paths[0]).toBe('net/limits.py');
    expect(paths[1]).toBe('docs/rate-limits.md');
  });

  it('gives the README back when the query names it, and docs when it asks for docs', async () => {
    const named = await searchRepository(db, 'retry backoff in the README', { mode: 'keyword' });
    expect(named[0]!.path).toBe('README.md');
    // Asking for docs lifts the demotion: the README's score relative to the code's doubles.
    const share = async (query: string) => {
      const results = await searchRepository(db, query, { mode: 'keyword' });
      const score = (path: string) => results.find((r) => r.path === path)!.score;
      return score('README.md') / score('net/retry.py');
    };
    expect(await share('docs for retry backoff delay')).toBeGreaterThan(1.5 * (await share('retry backoff delay')));
  });

  it('gives a configuration file back when the query names it', async () => {
    const results = await searchRepository(db, 'retry delay in settings.json', { mode: 'keyword' });
    expect(results[0]!.path).toBe('config/settings.json');
  });
});

describe('whole-file BM25', () => {
  it('stems query words like the index does', () => {
    expect(stemmedWords(db, 'Retrying the retries')).toEqual(expect.arrayContaining(['retri', 'the']));
  });

  it('scores the file that uses a word throughout above a file that uses it once', () => {
    const scores = fileBm25(db, parseQuery('session cookies'));
    const idOf = (path: string) => db.prepare('select id from files where path = ?').pluck().get(path) as number;
    expect(scores.get(idOf('net/session.py'))).toBeGreaterThan(scores.get(idOf('net/client.py')) ?? 0);
  });

  it('says when a file matched as a whole', async () => {
    const results = await searchRepository(db, 'session cookies', { mode: 'keyword' });
    expect(results[0]!.path).toBe('net/session.py');
    expect(results[0]!.why).toContainEqual({ kind: 'file-text-match', detail: { score: 1 } });
  });
});
