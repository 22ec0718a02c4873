import { describe, expect, it } from 'vitest';
import { draftToValue, SETTING_SECTIONS, valueAt } from './fields';

const field = (label: string) => SETTING_SECTIONS.flatMap((s) => s.fields).find((f) => f.label === label)!;

describe('settings fields', () => {
  it('parses drafts by kind', () => {
    expect(draftToValue(field('Max parts'), '12')).toBe(12);
    expect(draftToValue(field('Max parts'), '1.5')).toBeUndefined();
    expect(draftToValue(field('Temperature'), '0.3')).toBe(0.3);
    expect(draftToValue(field('Server address'), '  ')).toBeNull();
    expect(draftToValue(field('Start Ollama when it is not running'), 'true')).toBe(true);
    expect(field('Run validation commands without a sandbox where this machine has none')).toMatchObject({ path: ['sandbox', 'allow_unsandboxed_validation'], kind: 'bool' });
  });

  it('gives every field its own label, and the two context windows a line each on what they are', () => {
    const fields = SETTING_SECTIONS.flatMap((s) => s.fields);
    expect(new Set(fields.map((f) => f.label)).size).toBe(fields.length);
    const windows = fields.filter((f) => f.path[f.path.length - 1] === 'context_window');
    expect(windows.map((f) => f.path.join('.'))).toEqual(['models.context_window', 'budget.context_window']);
    for (const f of windows) expect(f.help).toMatch(/\w+ .*\w+/);
    expect(windows[0]?.help).not.toBe(windows[1]?.help);
  });

  it('reads nested values', () => {
    expect(valueAt({ budget: { context_window: 5 } }, ['budget', 'context_window'])).toBe(5);
    expect(valueAt(null, ['budget'])).toBeUndefined();
  });
});
