import { describe, expect, it } from 'vitest';
import { formatTable } from './searchCommand';

describe('cra search listing', () => {
  it('shows path:best line and words the reasons from their kinds', () => {
    const text = formatTable(
      [
        {
          path: 'shop/users.py',
          score: 1,
          symbols: [{ name: 'UserRepository.get_user_by_id', kind: 'method', startLine: 7, endLine: 9 }],
          lines: [],
          bestLine: 7,
          why: [
            { kind: 'definition', detail: { symbol: 'get_user_by_id' } },
            { kind: 'text-match', detail: { score: 1 } },
          ],
        },
        { path: 'shop/pdf.py', score: 0.25, symbols: [], lines: [], bestLine: null, why: [{ kind: 'imported-by', detail: { path: 'shop/users.py' } }] },
      ],
      '2 files',
    );
    expect(text).toContain('  1  shop/users.py:7  1.000\n     UserRepository.get_user_by_id 7-9  · defines get_user_by_id; text match\n');
    expect(text).toContain('  2  shop/pdf.py      0.250\n     imported by shop/users.py\n');
    expect(text).not.toContain('[object Object]');
  });
});
