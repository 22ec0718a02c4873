import { describe, expect, it } from 'vitest';
import { fileIntentOf, namedByQuery } from './fileKinds';
import { analyseIssueText, focusText, ISSUE_TEXT } from './issueText';
import { parseQuery } from './query';

const TRACEBACK_ISSUE = [
  'Parsing a header with a trailing semicolon crashes.',
  '',
  '```pytb',
  'Traceback (most recent call last):',
  '  File "/home/me/app.py", line 3, in <module>',
  '    main()',
  '  File "/usr/lib/python3.11/runpy.py", line 88, in _run_code',
  '    exec(code, run_globals)',
  '  File "/home/me/.venv/lib/python3.11/site-packages/shop/headers.py", line 40, in parse_options',
  '    key, value = item.split("=")',
  'ValueError: not enough values to unpack (expected 2, got 1)',
  '```',
].join('\n');

const SESSION_ISSUE = [
  'Options with an empty value are lost:',
  '',
  '```',
  'Python 3.11.4 (main, Jun  7 2023, 00:00:00) [GCC 12.2.0] on linux',
  'Type "help", "copyright", "credits" or "license" for more information.',
  '>>> from shop.headers import parse_options',
  '>>> parse_options("a=1; b=")',
  "{'a': '1'}",
  '```',
].join('\n');

describe('issue-style query analysis', () => {
  it('takes the error line and the frames of a traceback, innermost first, without the standard library', () => {
    const issue = analyseIssueText(TRACEBACK_ISSUE);
    expect(issue.prose).toBe('Parsing a header with a trailing semicolon crashes.');
    expect(issue.errors).toEqual(['ValueError: not enough values to unpack (expected 2, got 1)']);
    expect(issue.frames).toEqual([{ path: 'shop/headers.py', function: 'parse_options' }, { path: '/home/me/app.py' }]);
  });

  it('keeps the code of a session (imports and calls) and drops its output and banner', () => {
    const issue = analyseIssueText(SESSION_ISSUE);
    expect(issue.identifiers).toEqual(['shop.headers', 'parse_options']);
    expect(focusText(SESSION_ISSUE)).not.toMatch(/copyright|license|GCC/);
    expect(parseQuery(SESSION_ISSUE).terms).not.toContain('license');
  });

  it('finds unfenced tracebacks and sessions in prose', () => {
    const text = 'It fails:\nTraceback (most recent call last):\n  File "src/shop/tax.py", line 2, in rate\nKeyError: \'vat\'\nSee above.\n>>> rate("vat")';
    const issue = analyseIssueText(text);
    expect(issue.prose).toBe('It fails:\nSee above.');
    expect(issue.frames).toEqual([{ path: 'src/shop/tax.py', function: 'rate' }]);
    expect(issue.errors).toEqual(["KeyError: 'vat'"]);
    expect(issue.identifiers).toEqual(['rate']);
  });

  it('leaves plain prose (a commit message, a question) as it is', () => {
    const message = 'Fix the cookie parser\n\nQuoted values with a ; inside were split. See #123.';
    expect(analyseIssueText(message)).toMatchObject({ structured: false, prose: message });
    expect(focusText(message)).toBe(message);
    expect(parseQuery(message).text).toBe(message);
  });

  it('caps what very long prose contributes', () => {
    const long = `The parser is slow. ${'lorem ipsum '.repeat(1000)}`;
    const issue = analyseIssueText(long);
    expect(issue.prose.length).toBe(ISSUE_TEXT.proseChars);
    expect(issue.prose.startsWith('The parser is slow.')).toBe(true);
  });

  it('reads an unclosed fence to the end, and a text of many fences in linear time', () => {
    const issue = analyseIssueText('Crash on import:\n```python\nfrom shop.cart import Cart\nCart().total()');
    expect(issue.prose).toBe('Crash on import:');
    expect(issue.identifiers).toEqual(['shop.cart', 'Cart', 'total']);
    // A regular expression with a back-reference took 4.3 s on this text; the line scan takes well under one.
    const started = performance.now();
    expect(analyseIssueText('```'.repeat(30_000)).structured).toBe(true);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('reads a fenced block without a language as code or output by its lines', () => {
    const lint = ['Lint fails:', '```', 'shop/users.py:10:1: E302 expected 2 blank lines', 'shop/users.py:20:1: E305 expected 2 blank lines', '```'].join('\n');
    expect(analyseIssueText(lint).identifiers).toEqual([]);
    const code = ['Try:', '```', 'repo = UserRepository()', 'repo.get_user_by_id(3)', '```'].join('\n');
    expect(analyseIssueText(code).identifiers).toEqual(['UserRepository', 'repo.get_user_by_id']);
  });
});

describe('files an issue names outright', () => {
  it('takes the path of a source-host file link, the line anchor cut', () => {
    const text = 'The port is ignored, see https://github.com/shop/shop/blob/8c9537d3/lib/shop/dialects/mssql/Pymssql.py#L96 and https://raw.githubusercontent.com/shop/shop/main/lib/shop/cart.py.';
    expect(analyseIssueText(text).links).toEqual(['lib/shop/dialects/mssql/pymssql.py', 'lib/shop/cart.py']);
    expect(parseQuery(text).linkedPaths).toEqual(['lib/shop/dialects/mssql/pymssql.py', 'lib/shop/cart.py']);
    // A link to a folder or a page names no file.
    expect(analyseIssueText('See https://github.com/shop/shop/tree/main/lib/shop and https://shop.example.org/docs/').links).toEqual([]);
  });

  it('takes dotted module names from the prose, not from imports nor from pasted code', () => {
    const text = ['`shop.headers.parse_options` drops empty values (from shop.cart import Cart).', '```python', 'from shop.tax import rate', 'shop.tax.rate("vat")', '```'].join('\n');
    expect(analyseIssueText(text).modules).toEqual(['shop.headers.parse_options']);
    expect(analyseIssueText('import shop.cart fails').modules).toEqual([]);
  });
});

describe('file kinds under an issue-style query', () => {
  it('does not take the licence as named by an interactive banner ("copyright, credits or license")', () => {
    // The miss of issue #27: the banner made LICENSE wanted, and it ranked first.
    const intent = fileIntentOf(parseQuery(SESSION_ISSUE));
    expect(namedByQuery('LICENSE', intent)).toBe(false);
    expect(namedByQuery('LICENSE', fileIntentOf(parseQuery('update the license year')))).toBe(true);
  });
});
