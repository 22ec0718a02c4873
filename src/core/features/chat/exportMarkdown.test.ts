import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../shared/contract/chat';
import { conversationMarkdown, exportFileName } from './exportMarkdown';

const user = (id: number, content: string): ChatMessage => ({ id, conversationId: 'c-1', role: 'user', content, createdAt: 't' });

describe('conversation markdown', () => {
  it('names the file after the title, or the conversation id when the title has no letters or digits', () => {
    expect(exportFileName('Where is the Config loaded?', 'c-1')).toBe('where-is-the-config-loaded.md');
    expect(exportFileName('Café — résumé', 'c-1')).toBe('cafe-resume.md');
    expect(exportFileName('设置在哪里？', 'c-9')).toBe('c-9.md');
    expect(exportFileName('x'.repeat(100), 'c-1')).toBe(`${'x'.repeat(60)}.md`);
  });

  it('keeps a multi-line question whole, says when an answer failed, and when a question has none', () => {
    const messages: ChatMessage[] = [
      user(1, 'First line\nsecond line'),
      { id: 2, conversationId: 'c-1', role: 'assistant', content: '', createdAt: 't', status: 'failed', error: 'model "m" not found' },
      user(3, 'Still there?'),
    ];
    const { markdown } = conversationMarkdown({ conversationId: 'c-1', title: 'First line\nsecond line', messages: 3, updatedAt: 't' }, messages, 'shop');
    expect(markdown).toBe(
      [
        '# First line second line',
        '',
        'Repository: shop · conversation `c-1` · last message t',
        '',
        '## First line second line',
        '',
        '> First line',
        '> second line',
        '',
        '_(empty answer)_',
        '',
        '> The answer failed: model "m" not found',
        '',
        '## Still there?',
        '',
        '_No answer was stored._',
        '',
      ].join('\n'),
    );
  });
});
