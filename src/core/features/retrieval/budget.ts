/**
 * The token budget of a context package (docs/design.md, Budgets and modes): a BudgetConfig
 * of the execute model's window and what is kept back for everything but the package, validated
 * once for every caller by src/shared/budget.ts (which the CLI's --budget-config reader uses too);
 * chars/4 estimates with a safety margin (no tokenizer dependency); the exact counts come from the
 * server with each call and are recorded per stage (see TokenMeter).
 */
export { DEFAULT_SAFETY_MARGIN, effectiveBudget, validateSafetyMargin, type BudgetConfig } from '../../../shared/budget';

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
