import { describe, expect, it } from 'vitest';
import type { ChatCitation, ChatSource } from '../../../../shared/contract/chat';
import { answerHtml, citationView, markdownDepth, MARKDOWN_MAX_DEPTH, SHOWN_MAX_CHARS, type CitationContext } from './answerMarkdown';

const source: ChatSource = { path: 'src/app.py', startLine: 1, endLine: 40, score: 1, role: 'seed', why: [] };
const checked = (text: string, path: string, status: ChatCitation['status']): ChatCitation => ({ text, path, startLine: 3, endLine: 3, status, why: [] });
const done = (citations: ChatCitation[]): CitationContext => ({ citations, sources: [source], isStreaming: false });

function render(answer: string, context: CitationContext): HTMLElement {
  const div = document.createElement('div');
  div.innerHTML = answerHtml(answer, context);
  return div;
}

describe('answer markdown', () => {
  it('renders markdown: emphasis, lists, inline code and fenced code blocks', () => {
    const el = render('The **loader**:\n\n- reads `app.json`\n- returns a dict\n\n```python\ndef f():\n    return 1\n```', done([]));
    expect(el.querySelector('strong')?.textContent).toBe('loader');
    expect([...el.querySelectorAll('li')].map((li) => li.textContent)).toEqual(['reads app.json', 'returns a dict']);
    expect(el.querySelector('li code')?.textContent).toBe('app.json');
    expect(el.querySelector('pre code')?.textContent).toBe('def f():\n    return 1\n');
  });

  it('makes checked citations buttons carrying the path and lines, flags unverified ones, and leaves citations in code alone', () => {
    const el = render('See [src/app.py:3] and [src/app.py:10-12], not [gone.py:3]; `[src/app.py:3]` in code.', done([checked('[src/app.py:3]', 'src/app.py', 'source'), checked('[gone.py:3]', 'gone.py', 'unverified')]));
    const buttons = [...el.querySelectorAll('button.chat-citation')] as HTMLButtonElement[];
    expect(buttons.map((b) => [b.textContent, b.dataset.path, b.dataset.line, b.dataset.endLine])).toEqual([
      ['[src/app.py:3]', 'src/app.py', '3', '3'],
      ['[src/app.py:10-12]', 'src/app.py', '10', '12'],
    ]);
    const flagged = el.querySelector('.chat-citation.unverified');
    expect(flagged?.tagName).toBe('SPAN');
    expect(flagged?.textContent).toBe('[gone.py:3]');
    expect(el.querySelector('code')?.textContent).toBe('[src/app.py:3]');
  });

  it('while streaming, a citation of a source file links at once and an unknown one waits; once finished without a check it is flagged', () => {
    const streaming: CitationContext = { citations: null, sources: [source], isStreaming: true };
    expect(citationView('[src/app.py:3]', 'src/app.py', streaming)).toBe('linked');
    expect(citationView('[other.py:3]', 'other.py', streaming)).toBe('pending');
    expect(citationView('[other.py:3]', 'other.py', { ...streaming, isStreaming: false })).toBe('unverified');
    expect(citationView('[other.py:3]', 'other.py', done([checked('[other.py:3]', 'other.py', 'indexed')]))).toBe('linked');
  });

  it('sanitizes what the model wrote: no script, no event handler, no javascript: link; raw HTML shows as text', () => {
    const el = render('Hi <img src=x onerror="alert(1)"> <script>alert(2)</script> [click](javascript:alert(3)) [ok](https://example.com)', done([]));
    expect(el.querySelector('script, img, [onerror]')).toBeNull();
    expect(el.textContent).toContain('<img src=x onerror="alert(1)">');
    const links = [...el.querySelectorAll('a')];
    expect(links.map((a) => a.getAttribute('href'))).toEqual([null, 'https://example.com']);
  });

  it('shows an 8 MB answer (stored before answers were capped) cut to its first 256 KB as text, citations linked, with notes; no stack overflow', () => {
    const answer = `${'Read [src/app.py:3] then [gone.py:3]. '.repeat(4)}\n${'> '.repeat(50_000)}deep\n${'[[[[ *a '.repeat(1024 * 1024)}`;
    expect(answer.length).toBeGreaterThan(8 * 1024 * 1024);
    const started = performance.now();
    const el = render(answer, done([checked('[gone.py:3]', 'gone.py', 'unverified')]));
    // Generous: the quadratic tokenizer and the recursive parser took minutes or threw here.
    expect(performance.now() - started).toBeLessThan(20_000);
    const plain = el.querySelector('.chat-answer-plain')!;
    expect(plain.textContent!.length).toBe(SHOWN_MAX_CHARS);
    expect(plain.textContent).toBe(answer.slice(0, SHOWN_MAX_CHARS));
    expect(el.querySelectorAll('button.chat-citation')).toHaveLength(4);
    expect(el.querySelectorAll('.chat-citation.unverified')).toHaveLength(4);
    expect([...el.querySelectorAll('.chat-answer-note')].map((n) => n.textContent)).toEqual([
      'A long answer (256 KB): shown as plain text.',
      `The answer is ${Math.round(answer.length / 1024)} KB long: only its first 256 KB are shown here; export the conversation for the whole text.`,
    ]);
  });

  it('shows a short answer nested deeper than the parser can recurse as text; ordinary nesting and indented code stay markdown', () => {
    const quotes = `${'>'.repeat(20_000)} deep [src/app.py:3]`;
    expect(markdownDepth(quotes)).toBe(20_000);
    const el = render(quotes, done([]));
    expect(el.querySelector('.chat-answer-plain')?.textContent).toBe(quotes);
    expect(el.querySelector<HTMLButtonElement>('button.chat-citation')?.dataset.path).toBe('src/app.py');
    expect(el.querySelector('.chat-answer-note')?.textContent).toBe(`An answer nested more than ${MARKDOWN_MAX_DEPTH} levels deep: shown as plain text.`);

    const nested = '- a\n  - b\n    - c\n\n> quoted\n\n```py\n' + `${' '.repeat(200)}deeply_indented()\n` + '```';
    expect(markdownDepth(nested)).toBe(2);
    const md = render(nested, done([]));
    expect(md.querySelectorAll('li li li')).toHaveLength(1);
    expect(md.querySelector('pre code')?.textContent).toContain('deeply_indented()');
    expect(md.querySelector('.chat-answer-plain, .chat-answer-note')).toBeNull();
  });
});
