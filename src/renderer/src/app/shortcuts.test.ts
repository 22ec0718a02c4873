import { describe, expect, it } from 'vitest';
import { filterEntries, keyAction, PAGE_KEYS, pageShortcut, SEQUENCE_MS, type KeyPress } from './shortcuts';

const press = (key: string, extra: Partial<KeyPress> = {}): KeyPress => ({ key, ctrlKey: false, metaKey: false, altKey: false, inField: false, ...extra });

describe('keyboard shortcuts', () => {
  it('opens the palette with Ctrl+K or Cmd+K, even in a text field', () => {
    expect(keyAction(press('k', { ctrlKey: true, inField: true }), null, 0)).toEqual({ kind: 'palette' });
    expect(keyAction(press('K', { metaKey: true }), null, 0)).toEqual({ kind: 'palette' });
  });

  it('leaves Ctrl/Cmd+digit and Alt+digit to the browser (tab switching)', () => {
    for (const extra of [{ ctrlKey: true }, { metaKey: true }, { altKey: true }]) expect(keyAction(press('1', extra), null, 0)).toEqual({ kind: 'none' });
  });

  it('goes to a page with G then its letter, within the time, outside text fields only', () => {
    expect(keyAction(press('g'), null, 0)).toEqual({ kind: 'pending' });
    expect(keyAction(press('c'), 1000, 1000 + SEQUENCE_MS)).toEqual({ kind: 'page', page: 'chat' });
    expect(keyAction(press(','), 0, 10)).toEqual({ kind: 'page', page: 'settings' });
    expect(keyAction(press('c'), 0, SEQUENCE_MS + 1)).toEqual({ kind: 'none' });
    expect(keyAction(press('g', { inField: true }), null, 0)).toEqual({ kind: 'none' });
    expect(keyAction(press('?'), null, 0)).toEqual({ kind: 'sheet' });
    expect(keyAction(press('?', { inField: true }), null, 0)).toEqual({ kind: 'none' });
  });

  it('gives every page its own letter and says it as a key sequence', () => {
    const letters = Object.values(PAGE_KEYS);
    expect(new Set(letters).size).toBe(letters.length);
    expect(pageShortcut('plans')).toBe('G then P');
  });

  it('filters palette entries by every word, label starts first', () => {
    const entries = [{ label: 'Search' }, { label: 'Add repository', detail: 'action' }, { label: 'Repositories', detail: 'page' }];
    expect(filterEntries(entries, 'rep').map((e) => e.label)).toEqual(['Repositories', 'Add repository']);
    expect(filterEntries(entries, 'add action').map((e) => e.label)).toEqual(['Add repository']);
    expect(filterEntries(entries, '')).toHaveLength(3);
  });
});
