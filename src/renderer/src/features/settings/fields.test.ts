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
  });

  it('reads nested values', () => {
    expect(valueAt({ budget: { context_window: 5 } }, ['budget', 'context_window'])).toBe(5);
    expect(valueAt(null, ['budget'])).toBeUndefined();
  });
});
