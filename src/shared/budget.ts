/**
 * The numbers of a token budget, checked the same way wherever they come from: the engine (a
 * retrieve run, an eval, a solve run's config) and the CLI's `--budget-config` file, read where
 * the user typed it. Pure: no file access here (the CLI reads the file, src/hosts/cli/budgetFile.ts).
 */
import { AppError } from './contract/errors';

/** The model's window and what is kept back for the system prompt, the answer and retries. */
export interface BudgetConfig {
  contextWindow: number;
  reservedTokens: number;
}

/** The effective retrieval budget, window − reserved; a clear error when the two do not make one. */
export function effectiveBudget(config: BudgetConfig): number {
  const { contextWindow: w, reservedTokens: r } = config;
  if (!Number.isInteger(w) || w <= 0) throw new AppError('VALIDATION', `The context window must be a whole number of tokens above 0 (got ${w}).`);
  if (!Number.isInteger(r) || r < 0) throw new AppError('VALIDATION', `The reserved tokens must be a whole number, 0 or more (got ${r}).`);
  if (r >= w) throw new AppError('VALIDATION', `The reserved tokens (${r}) must be fewer than the context window (${w}): nothing would be left for context.`);
  return w - r;
}

/** Default safety margin on the chars/4 estimate: counts 10% high, so a real tokenizer rarely exceeds it. */
export const DEFAULT_SAFETY_MARGIN = 0.1;

/** A safety margin must be a fraction from 0 to 1 (0.1 = estimates counted 10% high). */
export function validateSafetyMargin(margin: number): number {
  if (!Number.isFinite(margin) || margin < 0 || margin > 1) throw new AppError('VALIDATION', `The safety margin must be a number from 0 to 1 (got ${margin}); 0.1 counts estimates 10% high.`);
  return margin;
}

/** A budget file's content: the two numbers, and optionally the safety margin. */
export interface BudgetFile extends BudgetConfig {
  safetyMargin?: number;
}

/**
 * A budget file's parsed content (`{"context_window": 32768, "reserved_tokens": 4096}`, optionally
 * `safety_margin`) as a {@link BudgetFile}. Unknown keys, missing keys and values that do not make
 * a budget are refused, naming `file` and the fix.
 */
export function budgetFromFile(raw: unknown, file: string): BudgetFile {
  const example = 'e.g. {"context_window": 32768, "reserved_tokens": 4096}';
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new AppError('VALIDATION', `The budget config ${file} must be an object, ${example}.`);
  const o = raw as Record<string, unknown>;
  const unknown = Object.keys(o).filter((k) => !['context_window', 'reserved_tokens', 'safety_margin'].includes(k));
  if (unknown.length) throw new AppError('VALIDATION', `The budget config ${file} has unknown keys: ${unknown.join(', ')} (allowed: context_window, reserved_tokens, safety_margin).`);
  for (const key of ['context_window', 'reserved_tokens']) {
    if (typeof o[key] !== 'number') throw new AppError('VALIDATION', `The budget config ${file} needs ${key} as a number, ${example}.`);
  }
  const config: BudgetFile = { contextWindow: o.context_window as number, reservedTokens: o.reserved_tokens as number };
  effectiveBudget(config);
  if (o.safety_margin !== undefined) config.safetyMargin = validateSafetyMargin(typeof o.safety_margin === 'number' ? o.safety_margin : NaN);
  return config;
}
