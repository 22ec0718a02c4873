import { readFileSync } from 'node:fs';
import { parse, TomlError } from 'smol-toml';
import { budgetFromFile, type BudgetFile } from '../../shared/budget';
import { AppError } from '../../shared/contract';

/**
 * Read a `--budget-config` file where the user typed it (under --remote too: it is the user's
 * file): JSON `{"context_window": 32768, "reserved_tokens": 4096}` or the same keys in TOML (by the
 * `.toml` extension), optionally `safety_margin`; the content is checked by {@link budgetFromFile}.
 */
export function readBudgetConfigFile(file: string): BudgetFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new AppError('VALIDATION', `Cannot read the budget config ${file}: ${(error as Error).message}`);
  }
  const toml = file.toLowerCase().endsWith('.toml');
  let raw: unknown;
  try {
    raw = toml ? parse(text) : JSON.parse(text);
  } catch (error) {
    throw new AppError('VALIDATION', `The budget config ${file} is not valid ${toml ? 'TOML' : 'JSON'}: ${toml && error instanceof TomlError ? tomlProblem(error, text, file) : (error as Error).message}`);
  }
  return budgetFromFile(raw, file);
}

/** Where a TOML file goes wrong: `file:line:column`, what the parser says, and the line's text. */
function tomlProblem(error: TomlError, text: string, file: string): string {
  const lineText = (text.split('\n')[error.line - 1] ?? '').trim().slice(0, 80);
  const reads = lineText ? `; line ${error.line} reads \`${lineText}\`` : '';
  return `${file}:${error.line}:${error.column}: not valid TOML (${(error.message.split('\n')[0] ?? '').replace(/^Invalid TOML document: /, '')}${reads}).`;
}
