import { describe, expect, it } from 'vitest';
import { reciprocalRankFusion } from './fusion';
import { buildMatchExpression, parseQuery, quoteFts, splitIdentifier } from './query';

describe('splitIdentifier', () => {
  it('splits camelCase, PascalCase, acronyms and snake_case', () => {
    expect(splitIdentifier('getUserById')).toEqual(['get', 'user', 'by', 'id']);
    expect(splitIdentifier('parseHTTPResponse2')).toEqual(['parse', 'http', 'response2']);
    expect(splitIdentifier('XMLParser')).toEqual(['xml', 'parser']);
    expect(splitIdentifier('get_user_by_id')).toEqual(['get', 'user', 'by', 'id']);
    expect(splitIdentifier('__init__')).toEqual(['init']);
  });
});

describe('parseQuery', () => {
  it('keeps whole identifiers and their parts, drops stop words from prose', () => {
    const q = parseQuery('where is the getUserById function defined');
    expect(q.terms).toEqual(expect.arrayContaining(['getuserbyid', 'get', 'user', 'by', 'id', 'defined']));
    expect(q.terms).not.toContain('where');
    expect(q.terms).not.toContain('the');
    expect(q.identifiers).toContain('getUserById');
  });

  it('offers snake and joined forms of a short phrase as symbol names', () => {
    const q = parseQuery('parse headers');
    expect(q.symbolNames).toEqual(expect.arrayContaining(['parse_headers', 'parseheaders']));
  });

  it('takes the last segment of dotted names as identifiers too', () => {
    expect(parseQuery('os.path.join').identifiers).toEqual(['os', 'path', 'join']);
  });

  it('marks short abbreviations and the last word as prefix terms', () => {
    const q = parseQuery('ctx manag');
    expect(q.prefixTerms).toEqual(expect.arrayContaining(['ctx', 'manag']));
  });

  it('notices when a query is about tests', () => {
    expect(parseQuery('tests for the parser').mentionsTests).toBe(true);
    expect(parseQuery('the parser').mentionsTests).toBe(false);
  });

  it('tells a bug report (code, a traceback, pasted output) from a commit message or a question', () => {
    const commit = 'Fix parse_options dropping empty values\n\nA trailing "b=" lost the key; keep it with an empty string.';
    expect(parseQuery(commit).issueShaped).toBe(false);
    expect(parseQuery('where are options parsed?').issueShaped).toBe(false);
    expect(parseQuery('Options with an empty value are lost:\n\n```python\nparse_options("a=1; b=")\n```').issueShaped).toBe(true);
    expect(parseQuery('It crashes.\n\nTraceback (most recent call last):\n  File "shop/headers.py", line 40, in parse_options\nValueError: bad').issueShaped).toBe(true);
  });
});

describe('buildMatchExpression', () => {
  it('quotes every term and ORs them', () => {
    expect(buildMatchExpression(parseQuery('load config'))).toBe('"load" OR "config" *');
  });

  it('returns null when nothing searchable is left', () => {
    expect(buildMatchExpression(parseQuery('"*( - :'))).toBeNull();
    expect(buildMatchExpression(parseQuery('the of and'))).toBeNull();
  });

  it('doubles inner quotes', () => {
    expect(quoteFts('a"b')).toBe('"a""b"');
  });
});

describe('reciprocalRankFusion', () => {
  it('sums 1/(k+rank) over the rankings', () => {
    const fused = reciprocalRankFusion([
      ['a', 'b', 'c'],
      ['b', 'd'],
    ]);
    const score = Object.fromEntries(fused.map((f) => [f.key, f.score]));
    expect(score.a).toBeCloseTo(1 / 61, 12);
    expect(score.b).toBeCloseTo(1 / 62 + 1 / 61, 12);
    expect(score.c).toBeCloseTo(1 / 63, 12);
    expect(score.d).toBeCloseTo(1 / 62, 12);
    expect(fused.map((f) => f.key)).toEqual(['b', 'a', 'd', 'c']);
  });

  it('uses the given k', () => {
    expect(reciprocalRankFusion([['x']], 10)[0]!.score).toBeCloseTo(1 / 11, 12);
  });
});
