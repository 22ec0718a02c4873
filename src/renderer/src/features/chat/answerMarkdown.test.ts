import { describe, expect, it } from 'vitest';
import type { ChatCitation, ChatSource } from '../../../../shared/contract/chat';
import { answerHtml, citationView, type CitationContext } from './answerMarkdown';

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
});
