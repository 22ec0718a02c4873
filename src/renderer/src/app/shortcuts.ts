import type { PageId } from './store/navStore';

/**
 * Page shortcuts: G, then a letter (as in mail and issue trackers). Ctrl/Cmd+digit and Alt+digit
 * switch the browser's tabs, so the app takes neither.
 */
export const PAGE_KEYS: Record<PageId, string> = {
  repositories: 'r',
  search: 's',
  chat: 'c',
  plans: 'p',
  models: 'm',
  logs: 'l',
  settings: ',',
  eval: 'e',
  retrieval: 'i',
  training: 'd',
};

/** Every shortcut of the app, for the sheet (`?`). */
export const SHORTCUTS: Array<{ keys: string; what: string }> = [
  { keys: 'Ctrl+K / ⌘K', what: 'Command palette: pages, repositories, conversations, recent runs, actions' },
  { keys: '?', what: 'This list of shortcuts' },
  { keys: 'Esc', what: 'Close the palette or this list' },
  { keys: 'Esc', what: 'Chat: stop the answer being written' },
  { keys: '↑ / ↓, Enter', what: 'Move through search results and palette entries; open one' },
];

/** How long after G the second key still counts, in ms. */
export const SEQUENCE_MS = 1500;

/** What a key press does: nothing, open the palette or the shortcut sheet, wait for a page letter, or go to a page. */
export type KeyAction = { kind: 'none' } | { kind: 'palette' } | { kind: 'sheet' } | { kind: 'pending' } | { kind: 'page'; page: PageId };

/** The key press as far as shortcuts care. */
export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  /** The focus is in a text field: plain letters are typing there, not shortcuts. */
  inField: boolean;
}

/**
 * Decide what a key press does; `pendingSince` is when a G was pressed (null when none), `now`
 * the time of this press. Ctrl/Cmd+K works everywhere; `?` and G-sequences only outside text fields.
 */
export function keyAction(press: KeyPress, pendingSince: number | null, now: number): KeyAction {
  const modified = press.ctrlKey || press.metaKey;
  if (modified && !press.altKey && press.key.toLowerCase() === 'k') return { kind: 'palette' };
  if (modified || press.altKey || press.inField) return { kind: 'none' };
  if (pendingSince !== null && now - pendingSince <= SEQUENCE_MS) {
    const page = (Object.keys(PAGE_KEYS) as PageId[]).find((id) => PAGE_KEYS[id] === press.key.toLowerCase());
    return page ? { kind: 'page', page } : { kind: 'none' };
  }
  if (press.key === '?') return { kind: 'sheet' };
  if (press.key === 'g' || press.key === 'G') return { kind: 'pending' };
  return { kind: 'none' };
}

/** "G then C" for a page's shortcut, as the sheet and tooltips say it. */
export function pageShortcut(page: PageId): string {
  return `G then ${PAGE_KEYS[page].toUpperCase()}`;
}

/** True when keys typed into the element are text (inputs, text areas, editors, selects). */
export function isTextField(target: EventTarget | null): boolean {
  if (!target || !(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag !== 'INPUT') return false;
  const type = (target as HTMLInputElement).type;
  return !['checkbox', 'radio', 'button', 'submit', 'range', 'color', 'file'].includes(type);
}

/** True when the element is inside a dialog (the palette, the shortcut sheet, a question): its keys are its own. */
export function isInDialog(target: EventTarget | null): boolean {
  return target instanceof Element && target.closest('[role="dialog"], [role="alertdialog"]') !== null;
}

/** Palette entries matching a filter: every word of it appears in the label or the detail (case-insensitive), best first. */
export function filterEntries<T extends { label: string; detail?: string }>(entries: readonly T[], filter: string): T[] {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...entries];
  const scored: Array<{ entry: T; score: number; order: number }> = [];
  entries.forEach((entry, order) => {
    const label = entry.label.toLowerCase();
    const text = `${label} ${(entry.detail ?? '').toLowerCase()}`;
    if (!words.every((w) => text.includes(w))) return;
    const score = label.startsWith(words[0] ?? '') ? 0 : words.every((w) => label.includes(w)) ? 1 : 2;
    scored.push({ entry, score, order });
  });
  return scored.sort((a, b) => a.score - b.score || a.order - b.order).map((s) => s.entry);
}
