import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readBudgetConfigFile } from './budgetFile';

const dir = mkdtempSync(join(tmpdir(), 'cra-budget-'));
const file = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('--budget-config files', () => {
  it('reads JSON and TOML, and refuses unknown keys, missing numbers and impossible budgets with the file named', () => {
    expect(readBudgetConfigFile(file('b.json', '{"context_window": 8192, "reserved_tokens": 1024, "safety_margin": 0.2}'))).toEqual({ contextWindow: 8192, reservedTokens: 1024, safetyMargin: 0.2 });
    expect(readBudgetConfigFile(file('b.toml', 'context_window = 4096\nreserved_tokens = 0\n'))).toEqual({ contextWindow: 4096, reservedTokens: 0 });
    expect(() => readBudgetConfigFile(file('c.json', '{"context_window": 10, "reserved": 1}'))).toThrow(/c\.json has unknown keys: reserved/);
    expect(() => readBudgetConfigFile(file('d.json', '{"context_window": 10}'))).toThrow(/d\.json needs reserved_tokens as a number/);
    expect(() => readBudgetConfigFile(file('e.json', '{"context_window": 10, "reserved_tokens": 10}'))).toThrow(/must be fewer than the context window/);
    expect(() => readBudgetConfigFile(file('f.json', '{"context_window": 10, "reserved_tokens": 1, "safety_margin": 3}'))).toThrow(/safety margin must be a number from 0 to 1/);
    expect(() => readBudgetConfigFile(file('g.json', 'nope'))).toThrow(/g\.json is not valid JSON/);
    expect(() => readBudgetConfigFile(join(dir, 'missing.json'))).toThrow(/Cannot read the budget config/);
  });

  it('names the file, line and column of a TOML mistake, with the line, and no advice about the main config', () => {
    const bad = file('bad.toml', 'context_window = 4096\nreserved_tokens = = 1\n');
    let message = '';
    try {
      readBudgetConfigFile(bad);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(new RegExp(`^The budget config ${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not valid TOML: ${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2:\\d+: not valid TOML \\(.*; line 2 reads \`reserved_tokens = = 1\`\\)\\.$`));
    expect(message).not.toContain('cra init');
  });
});
