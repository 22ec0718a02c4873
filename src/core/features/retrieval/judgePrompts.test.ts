import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHAT_SYSTEM, CHAT_USER, fillTemplate, judgeFamilyOf, RERANKER_SYSTEM, RERANKER_USER } from './judgePrompts';

const shipped = (name: string) => readFileSync(join(__dirname, '../../../../resources/prompts', name), 'utf8');

describe('judge prompt templates', () => {
  it('match their readable copies in resources/prompts (system, ---, user turn)', () => {
    expect(shipped('judge-reranker.txt')).toBe(`${RERANKER_SYSTEM}\n---\n${RERANKER_USER}\n`);
    expect(shipped('judge-chat.txt')).toBe(`${CHAT_SYSTEM}\n---\n${CHAT_USER}\n`);
  });

  it('pick the family from the model name and fill slots once (braces in an item stay as they are)', () => {
    expect(judgeFamilyOf('dengcao/Qwen3-Reranker-0.6B:Q8_0')).toBe('reranker');
    expect(judgeFamilyOf('qwen3:0.6b')).toBe('chat');
    expect(fillTemplate('<Document>: {document}', { document: 'def f(): return {query}' })).toBe('<Document>: def f(): return {query}');
    expect(() => fillTemplate('{missing}', {})).toThrow(/missing/);
  });
});
