import { describe, expect, it } from 'vitest';
import { AnswerCap, describeLoop, loopError } from './limits';

const pipeline = (lines: Record<string, number>) => ({ name: 'p', file: '.cleanroom/pipelines/p.yaml', steps: new Map(Object.entries(lines).map(([id, line]) => [id, { line }])) }) as never;
const steps = (...ids: string[]) => ids.map((id) => ({ id }));

describe('chat limits', () => {
  it('describeLoop names the shortest repeating tail with its lines, or nothing when the tail does not repeat', () => {
    const p = pipeline({ route: 3, retrieve: 7, answer: 12 });
    expect(describeLoop(steps('route', 'retrieve', 'answer', 'retrieve', 'answer', 'retrieve', 'answer'), p)).toBe('retrieve (line 7) → answer (line 12) → retrieve');
    expect(describeLoop(steps('route', 'answer', 'answer'), p)).toBe('answer (line 12) → answer');
    expect(describeLoop(steps('route', 'retrieve', 'answer'), p)).toBeUndefined();
    expect(loopError(p, steps('route', 'retrieve'), 'used its budget of 3 model calls for one question', 'Raise it')).toBe(
      'The chat pipeline "p" (.cleanroom/pipelines/p.yaml) used its budget of 3 model calls for one question: the step retrieve (line 7) was running. Raise it.',
    );
  });

  it('AnswerCap keeps whole characters within the byte limit, then drops and counts the rest', () => {
    const cap = new AnswerCap(1);
    expect(cap.take('a'.repeat(1022))).toHaveLength(1022);
    // "é" is 2 bytes and "😀" 4: only "é" fits the last 2 bytes; no half character is kept.
    expect(cap.take('é😀x')).toBe('é');
    expect(cap.cut).toBe(true);
    expect(cap.take('more')).toBe('');
    expect(cap.dropped).toBe(4 + 1 + 4);
  });
});
