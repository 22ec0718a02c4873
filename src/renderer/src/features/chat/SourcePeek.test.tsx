import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../../../shared/contract';
import { setClientForTests, type Client } from '../../lib/client';
import { peekLines, SourcePeek } from './SourcePeek';

const content = Array.from({ length: 60 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
let asked: Array<Record<string, unknown>>;

beforeEach(() => {
  asked = [];
  setClientForTests({
    call: (async (method: string, input: Record<string, unknown>) => {
      asked.push({ method, ...input });
      if (input.path === 'gone.py') throw new AppError('NOT_FOUND', 'gone.py is not in the index of shop');
      return { path: input.path, lines: 60, content };
    }) as Client['call'],
    subscribe: () => () => {},
  });
});
afterEach(cleanup);

describe('peekLines', () => {
  it('shows the cited lines with three lines around them, at most 40', () => {
    expect(peekLines(content, { path: 'a.py', line: 10, endLine: 12 })).toEqual({ first: 7, lines: ['line 7', 'line 8', 'line 9', 'line 10', 'line 11', 'line 12', 'line 13', 'line 14', 'line 15'], cut: false });
    expect(peekLines(content, { path: 'a.py', line: 1, endLine: 1 }).first).toBe(1);
    const long = peekLines(content, { path: 'a.py', line: 5, endLine: 59 });
    expect(long).toMatchObject({ first: 2, cut: true });
    expect(long.lines).toHaveLength(40);
    expect(peekLines(content, { path: 'a.py', line: 70, endLine: 72 }).lines).toEqual([]);
  });
});

describe('SourcePeek', () => {
  it('reads the file with repos/file and marks the cited lines; Open file and Close call back', async () => {
    const onOpenFile = vi.fn();
    const onClose = vi.fn();
    render(<SourcePeek repoId="shop" target={{ path: 'a.py', line: 10, endLine: 11 }} onOpenFile={onOpenFile} onClose={onClose} />);
    const region = screen.getByRole('region', { name: 'Peek a.py:10-11' });
    expect(await screen.findByText('line 13')).toBeTruthy();
    expect([...region.querySelectorAll('.chat-peek-line.cited')].map((l) => l.textContent)).toEqual(['10line 10', '11line 11']);
    expect(asked).toEqual([{ method: 'repos/file', repoId: 'shop', path: 'a.py' }]);
    fireEvent.click(screen.getByRole('button', { name: 'Open file' }));
    fireEvent.click(screen.getByRole('button', { name: 'Close the peek' }));
    expect(onOpenFile).toHaveBeenCalledOnce();
    expect(onClose).toHaveBeenCalledOnce();
  });

  it("shows the engine's message when the file cannot be read", async () => {
    render(<SourcePeek repoId="shop" target={{ path: 'gone.py', line: 1, endLine: 1 }} onOpenFile={() => {}} onClose={() => {}} />);
    expect(await screen.findByText('gone.py is not in the index of shop')).toBeTruthy();
  });
});
