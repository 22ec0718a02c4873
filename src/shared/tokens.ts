/**
 * The one token estimate of the project: characters / 4 (about right for code and English with
 * the tokenizers of the small models we run), counted `margin` high (0.1 = 10% high) where a
 * budget must not be overrun; exact counts come from the model server when it reports them.
 */
export function estimateTokens(text: string, margin = 0): number {
  return Math.ceil((text.length / 4) * (1 + margin));
}
