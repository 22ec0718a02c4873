import { describe, expect, it } from 'vitest';
import type { ChatCitation, ChatSource } from '../../../../shared/contract/chat';
import { splitSources } from './sourceChips';

const source = (path: string, score: number, role: ChatSource['role'] = 'seed', startLine = 1, endLine = 20): ChatSource => ({ path, startLine, endLine, score, role, why: [] });
const citation = (path: string, startLine: number, endLine: number, status: ChatCitation['status'] = 'source'): ChatCitation => ({ text: `[${path}:${startLine}-${endLine}]`, path, startLine, endLine, status, why: [] });

describe('splitSources', () => {
  // 30 sources as a wide question gets them: 12 seeds, 18 neighbours, in the engine's order.
  const sources = [
    ...Array.from({ length: 12 }, (_, i) => source(`seed${i}.py`, 12 - i)),
    ...Array.from({ length: 18 }, (_, i) => source(`near${i}.py`, 0.5, 'neighbour')),
  ];

  it('shows the cited sources and the five best search hits; the rest go behind "more"', () => {
    const cited = [citation('near7.py', 3, 4), citation('seed9.py', 18, 25), citation('gone.py', 1, 2, 'unverified')];
    const { shown, more, cited: citedSet } = splitSources(sources, cited);
    expect(shown.map((s) => s.path)).toEqual(['seed0.py', 'seed1.py', 'seed2.py', 'seed3.py', 'seed4.py', 'seed9.py', 'near7.py']);
    expect(more).toHaveLength(23);
    expect([...citedSet].map((s) => s.path)).toEqual(['seed9.py', 'near7.py']);
  });

  it('a citation outside the lines of a source does not make it cited; before the answer only the best hits show', () => {
    expect(splitSources(sources, [citation('near7.py', 40, 45)]).cited.size).toBe(0);
    expect(splitSources(sources, null).shown).toHaveLength(5);
  });

  it('hides nothing when at most one source would be hidden', () => {
    const few = sources.slice(0, 6);
    expect(splitSources(few, null)).toMatchObject({ shown: few, more: [] });
  });
});
