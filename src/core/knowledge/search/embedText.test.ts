import { describe, expect, it } from 'vitest';
import { chunkEmbeddingText, EMBED_TEXT_CHARS } from './embedText';

describe('chunkEmbeddingText (the compact text recipe)', () => {
  it('puts path, names, signature and the docstring first sentence before the body, each identifier word once', () => {
    const text = chunkEmbeddingText({
      path: 'mail/smtpClient.py',
      kind: 'function',
      symbol_names: 'send_mail',
      signature: 'def send_mail(to_address, body)',
      docstring: 'Deliver a message over SMTP. Retries twice.',
      text: 'def send_mail(to_address, body):\n    """Deliver a message over SMTP. Retries twice."""\n    return deliver(to_address, body)\n',
    });
    // The docstring opens the Python body; its words are not repeated from there.
    expect(text).toBe('mail smtp Client py send to address body. Deliver a message over SMTP. return deliver to address body');
  });

  it('stays within the length limit, cut on a word boundary', () => {
    const text = chunkEmbeddingText({ path: 'data/table.py', kind: 'variable', symbol_names: 'TABLE', signature: null, docstring: null, text: 'TABLE = [\n' + '    alpha_beta_gamma,\n'.repeat(50) + ']\n' });
    expect(text.length).toBeLessThanOrEqual(EMBED_TEXT_CHARS);
    expect(text.startsWith('data table py. TABLE alpha beta gamma alpha')).toBe(true);
    expect(text.split(' ').at(-1)).toMatch(/^(alpha|beta|gamma)$/);
  });

  it('describes a text chunk without symbols by its path and first words', () => {
    expect(chunkEmbeddingText({ path: 'README.md', kind: 'text', symbol_names: '', signature: null, docstring: null, text: '# Clean Room\n\nTurn a repository into a knowledge base.' })).toBe(
      'README md. Clean Room Turn a repository into a knowledge base',
    );
  });
});
