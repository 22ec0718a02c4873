import { describe, expect, it } from 'vitest';
import { AnswerStreamFilter, missingStatement } from './protocol';

/** Feed the deltas; what was shown, the kind and the request. */
function read(deltas: string[]) {
  const f = new AnswerStreamFilter();
  const shown = deltas.map((d) => f.push(d)).join('') + f.end();
  return { shown, kind: f.kind, request: f.request };
}

describe('the answer protocol on a stream', () => {
  it('drops [Answer:] even when split across deltas, and passes the answer through', () => {
    expect(read(['  [Ans', 'wer:]', ' It is ', 'in app.py.'])).toEqual({ shown: 'It is in app.py.', kind: 'answer', request: '' });
  });
  it('swallows a request, split or not, and keeps its text', () => {
    expect(read(['[Request', 'ing data on:] load_config', ' callers'])).toEqual({ shown: '', kind: 'request', request: 'load_config callers' });
    expect(read(['[requesting data on:] x'])).toMatchObject({ kind: 'request', request: 'x' });
  });
  it('an unmarked reply is shown whole; a reply shorter than a marker too', () => {
    expect(read(['It is', ' in app.py.'])).toEqual({ shown: 'It is in app.py.', kind: 'unmarked', request: '' });
    expect(read(['[Ans'])).toEqual({ shown: '[Ans', kind: 'unmarked', request: '' });
  });
  it('the missing statement lists every request and guesses nothing', () => {
    const text = missingStatement(['a', 'b'], 1);
    expect(text).toMatch(/^I could not answer this from the repository: after 1 follow-up search the evidence/);
    expect(text).toContain('Still missing:\n- a\n- b');
  });
});
