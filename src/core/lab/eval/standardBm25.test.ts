import { describe, expect, it } from 'vitest';
import { pathTokens, STANDARD_BM25, StandardBm25, standardTokens } from './standardBm25';

describe('the standard BM25 reference', () => {
  it('splits identifiers (camelCase, snake_case) and keeps the whole identifier, without stop words', () => {
    expect(standardTokens('The getContentLength of parse_headers is 0')).toEqual(['getcontentlength', 'get', 'content', 'length', 'parse_headers', 'parse', 'headers']);
    expect(pathTokens('src/http_client/CookieJar.py')).toEqual(['src', 'http_client', 'http', 'client', 'cookiejar', 'cookie', 'jar', 'py']);
  });

  it('finds a file by the parts of its identifiers and by its path, scored with k1 1.2 and b 0.75', () => {
    const index = new StandardBm25();
    index.set('src/lengths.js', 'javascript', 'export function getContentLength(request) {\n  return request.size;\n}\n');
    index.set('src/cookies.py', 'python', 'def parse(header):\n    return header\n');
    index.set('src/other.py', 'python', 'def render(status):\n    return status\n');
    index.set('src/more.py', 'python', 'def render_more(status):\n    return status\n');
    // The words of the identifier find it (FTS5's unicode61 sees one token, getcontentlength).
    expect(index.rank('content length', new Set(['javascript']))).toEqual(['src/lengths.js']);
    // Only the path says "cookies"; a JavaScript file is no candidate of a Python ranking.
    expect(index.rank('cookies parsing', new Set(['python']))).toEqual(['src/cookies.py']);
    // Hand computation for "status" over the three Python files (N 3, df 2, tf 2 in each). Lengths
    // are path tokens + body tokens: other.py src other py + def render status return status = 8;
    // more.py 3 + def render_more render more status return status = 10; cookies.py 3 + 5 = 8.
    expect(index.rank('status', new Set(['python']))).toEqual(['src/other.py', 'src/more.py']);
    const average = (8 + 10 + 8) / 3;
    const idf = Math.log(1 + (3 - 2 + 0.5) / (2 + 0.5));
    const { k1, b } = STANDARD_BM25;
    const score = (length: number) => (idf * 2 * (k1 + 1)) / (2 + k1 * (1 - b + (b * length) / average));
    const scores = index.scores('status', new Set(['python']));
    expect(scores.get('src/other.py')).toBeCloseTo(score(8), 12);
    expect(scores.get('src/more.py')).toBeCloseTo(score(10), 12);
    expect(STANDARD_BM25).toEqual({ k1: 1.2, b: 0.75 });
  });

  it('forgets a removed file and re-counts a replaced one', () => {
    const index = new StandardBm25();
    index.set('a.py', 'python', 'def alpha(): pass');
    index.set('b.py', 'python', 'def beta(): pass');
    expect(index.rank('alpha', new Set(['python']))).toEqual(['a.py']);
    index.set('a.py', 'python', 'def gamma(): pass');
    expect(index.rank('alpha', new Set(['python']))).toEqual([]);
    index.remove('b.py');
    expect(index.has('b.py')).toBe(false);
    expect(index.rank('beta', new Set(['python']))).toEqual([]);
  });
});
