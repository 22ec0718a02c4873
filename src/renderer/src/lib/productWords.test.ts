import { describe, expect, it } from 'vitest';
import { embedderLabel, stepLabel } from './productWords';

describe('product words for internal names', () => {
  it('names pipeline steps and call purposes in words, never the identifier', () => {
    expect(stepLabel('translate_in')).toBe('Translate the question');
    expect(stepLabel('translate_in_if_needed')).toBe('Translate the question (if needed)');
    expect(stepLabel('some_new_step')).toBe('Some new step');
    for (const name of ['route_question', 'fetch_more_context', 'precision_pass1']) expect(stepLabel(name)).not.toMatch(/_/);
  });

  it('names embedders for people', () => {
    expect(embedderLabel('use-lite')).toBe('the built-in embedder');
    expect(embedderLabel('ollama:nomic-embed-text')).toBe('nomic-embed-text (model server)');
  });
});
