/**
 * The token budget of a context package (docs/design.md, Budgets and modes): a BudgetConfig
 * of the execute model's window and what is kept back for everything but the package, validated
 * once here for every caller; chars/4 estimates with a safety margin (no tokenizer dependency);
 * the exact counts come from the server with each call and are recorded per stage (see TokenMeter).
 */
import { readFileSync } from 'node:fs';
import { AppError } from '../../../shared/contract';
import { parseToml } from '../../platform/config/load';

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
 * Read a `--budget-config` file: JSON `{"context_window": 32768, "reserved_tokens": 4096}` or the
 * same keys in TOML (by the `.toml` extension), optionally `safety_margin`. Unknown keys, missing
 * keys and values that do not make a budget are refused with the file and the fix.
 */
export function readBudgetConfigFile(file: string): BudgetFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new AppError('VALIDATION', `Cannot read the budget config ${file}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = file.toLowerCase().endsWith('.toml') ? parseToml(text, file) : JSON.parse(text);
  } catch (error) {
    throw new AppError('VALIDATION', `The budget config ${file} is not valid ${file.toLowerCase().endsWith('.toml') ? 'TOML' : 'JSON'}: ${(error as Error).message}`);
  }
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

/** What the server counted for the calls of one stage, beside our chars/4 estimate of their prompts. */
export interface TokenUsage {
  calls: number;
  /** Exact prompt tokens as the server reported them. */
  promptTokens: number;
  completionTokens: number;
  /** Calls that failed (no counts). */
  failed: number;
}

/** Adds up the server's exact token counts of judgments, per stage name (precision_pass1…3 apart). */
export class TokenMeter {
  private readonly byStage = new Map<string, TokenUsage>();

  /** Count one judgment of a stage (a Judgment fits: its token counts, and `denyCause` 'call-failed' for a failed call). */
  add(stage: string, j: { promptTokens: number; completionTokens: number; denyCause?: string }): void {
    const u = this.byStage.get(stage) ?? { calls: 0, promptTokens: 0, completionTokens: 0, failed: 0 };
    u.calls++;
    if (j.denyCause === 'call-failed') u.failed++;
    u.promptTokens += j.promptTokens;
    u.completionTokens += j.completionTokens;
    this.byStage.set(stage, u);
  }

  /** Usage per stage name so far. */
  snapshot(): Record<string, TokenUsage> {
    return Object.fromEntries([...this.byStage].map(([k, v]) => [k, { ...v }]));
  }
}
