/**
 * Input shapes more than one request uses, so each concept has one shape across the contract: the
 * domain's words as enums that refuse an unknown value naming the allowed ones, and the token budget.
 */
import { z } from 'zod';

/**
 * A word of the domain from a fixed list (`what` is how a message names it, e.g. "a search mode"):
 * an unknown value is refused with the allowed values, so a host can show the message as it is.
 * `aliases` (old names still accepted for a release) are left out of the message.
 */
export function oneOf<const T extends readonly [string, ...string[]]>(what: string, values: T, aliases: readonly string[] = []) {
  const allowed = values.filter((v) => !aliases.includes(v)).join(', ');
  return z.enum(values, {
    error: (issue) => (issue.input === undefined ? `${what} is required (one of ${allowed})` : `${JSON.stringify(issue.input)} is not ${what}; use one of ${allowed}`),
  });
}

export { CHAT_MODES, EVAL_JUDGES, EVAL_SEARCH_MODES, SEARCH_MODES } from '../vocabulary';

const tokens = (what: string) => z.number({ error: `${what} must be a number of tokens` }).int({ error: `${what} must be a whole number of tokens` });

/**
 * A token budget, one shape in every request: the execute model's context window and the tokens it
 * keeps back (the budget is their difference; either left out comes from the config's [budget]),
 * or `tokens`, the budget outright.
 */
export const budgetSchema = z
  .object({
    contextWindow: tokens('the context window').positive({ error: 'the context window must be above 0 tokens' }).optional(),
    reservedTokens: tokens('the reserved tokens').min(0, { error: 'the reserved tokens must be 0 or more' }).optional(),
    tokens: tokens('the budget').positive({ error: 'the budget must be a whole number of tokens above 0' }).optional(),
  })
  .strict()
  .refine((b) => b.tokens === undefined || (b.contextWindow === undefined && b.reservedTokens === undefined), {
    error: 'give the budget as tokens, or as contextWindow and reservedTokens, not both',
  })
  .refine((b) => b.contextWindow === undefined || b.reservedTokens === undefined || b.reservedTokens < b.contextWindow, {
    error: (issue) => {
      const b = issue.input as { contextWindow: number; reservedTokens: number };
      return `the reserved tokens (${b.reservedTokens}) must be fewer than the context window (${b.contextWindow}): nothing would be left for context`;
    },
    path: ['reservedTokens'],
  });
/** A token budget as a request gives it. */
export type BudgetInput = z.infer<typeof budgetSchema>;
