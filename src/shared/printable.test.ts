import { describe, expect, it } from 'vitest';
import { printable } from './printable';

describe('printable', () => {
  it('escapes terminal control sequences, line breaks and bidirectional overrides', () => {
    expect(printable('evil\x1b[31mred\nname.py')).toBe('evil\\x1b[31mred\\nname.py');
    expect(printable('a\rb\tc\x07\x7f\x9b')).toBe('a\\rb\\tc\\x07\\x7f\\x9b');
    expect(printable('admin\u202e.txt')).toBe('admin\\u{202e}.txt');
  });

  it('leaves ordinary text, non-ASCII letters included, as it is', () => {
    expect(printable('src/café/日本.ts')).toBe('src/café/日本.ts');
  });

  it('keeps newlines and tabs in multiline text, never escape sequences', () => {
    expect(printable('line 1\n\tline 2\x1b]0;title\x07\r', { multiline: true })).toBe('line 1\n\tline 2\\x1b]0;title\\x07\\r');
  });
});
