import { describe, expect, it } from 'vitest';
import type { ChatSource } from '../../../shared/contract/chat';
import type { FileRecord } from '../../knowledge/kb/knowledgeBase';
import { parseCitations, ThinkingFilter } from './citations';

const sources: ChatSource[] = [{ path: 'src/config.py', startLine: 1, endLine: 20, score: 1, role: 'seed', why: [] }];
const files: Record<string, Partial<FileRecord>> = { 'src/config.py': { lines: 40, skipReason: null }, 'src/app.py': { lines: 10, skipReason: null } };
const kb = { getFileByPath: (p: string) => (files[p] ? ({ path: p, ...files[p] } as FileRecord) : null) };

describe('citations', () => {
  it('parses [path:start-end] and [path:line] and checks each against the sources and the index', () => {
    const answer = 'It is loaded in [src/config.py:4-7] and used at [src/app.py:5]; see also [src/config.py:30] and [src/nope.py:3-4], [src/app.py:50].';
    expect(parseCitations(answer, sources, kb).map((c) => [c.path, c.startLine, c.endLine, c.status])).toEqual([
      ['src/config.py', 4, 7, 'source'],
      ['src/app.py', 5, 5, 'indexed'],
      ['src/config.py', 30, 30, 'indexed'],
      ['src/nope.py', 3, 4, 'unverified'],
      ['src/app.py', 50, 50, 'unverified'],
    ]);
  });
  it('carries the cited reason, keeps a repeated citation once, reads reversed ranges and en dashes', () => {
    const cites = parseCitations('[src/config.py:7-4] and again [src/config.py:4–7]', sources, kb);
    expect(cites).toEqual([{ text: '[src/config.py:7-4]', path: 'src/config.py', startLine: 4, endLine: 7, status: 'source', why: [{ kind: 'cited', detail: { startLine: 4, endLine: 7 } }] }]);
  });
  it('ignores brackets that are not citations', () => {
    expect(parseCitations('a list [1, 2] and a link [docs](x) and time 10:30', sources, kb)).toEqual([]);
  });
});

describe('ThinkingFilter', () => {
  const run = (deltas: string[]) => {
    const f = new ThinkingFilter();
    return deltas.map((d) => f.push(d)).join('') + f.end();
  };
  it('drops a thinking block split across deltas, tags included', () => {
    expect(run(['<thi', 'nk>plan: cite con', 'fig</th', 'ink>\n\nThe answer', ' is here.'])).toBe('\n\nThe answer is here.');
  });
  it('passes text without tags unchanged, including a lone <', () => {
    expect(run(['a < b', ' and <t', 'able>'])).toBe('a < b and <table>');
  });
  it('shows nothing of an unclosed block', () => {
    expect(run(['Before. <think>never closed'])).toBe('Before. ');
  });
});
