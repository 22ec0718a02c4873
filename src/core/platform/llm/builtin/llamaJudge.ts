/**
 * Binary judgments inside the host: the verdict is read from the next-token distribution after the
 * rendered prompt — no token is generated. The judge sequence keeps what it evaluated, so the
 * prompt prefix every judgment of a stage shares (system + task) is evaluated once and only the
 * item's tokens after it are evaluated for each judgment (KV-cache reuse).
 */
import type { Token } from 'node-llama-cpp';
import type { JudgeRequest, JudgeResult } from './hostProtocol';
import type { LlamaModels, LoadedModel } from './llamaModels';

/** Spellings of the two answers; each one's first token stands for it (a whole word in Qwen's and Llama's vocabularies). */
const YES = ['yes', 'Yes', 'YES', ' yes', ' Yes', ' YES'];
const NO = ['no', 'No', 'NO', ' no', ' No', ' NO'];

const variantCache = new WeakMap<LoadedModel, { yes: Set<Token>; no: Set<Token>; noThink: Token[] }>();

/**
 * The first tokens of the yes and no spellings in this model's tokenizer (a token that starts both
 * a yes and a no spelling counts for neither), and the tokens of an empty thinking block when the
 * vocabulary has `<think>` (thinking models then answer at once, as Qwen3 does with thinking off).
 */
export function answerTokens(m: LoadedModel): { yes: Set<Token>; no: Set<Token>; noThink: Token[] } {
  let cached = variantCache.get(m);
  if (!cached) {
    const first = (words: string[]) => new Set(words.map((w) => m.model.tokenize(w, false, 'trimLeadingSpace')[0]).filter((t): t is Token => t !== undefined));
    const yes = first(YES);
    const no = first(NO);
    for (const t of [...yes]) {
      if (!no.has(t)) continue;
      yes.delete(t);
      no.delete(t);
    }
    const think = m.model.tokenize('<think>', true);
    const noThink = think.length === 1 ? m.model.tokenize('<think>\n\n</think>\n\n', true) : [];
    cached = { yes, no, noThink };
    variantCache.set(m, cached);
  }
  return cached;
}

/** Length of the common start of two token lists. */
function commonPrefix(a: readonly Token[], b: readonly Token[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/** P(yes) of one judgment, evaluating only the tokens after what the judge sequence already holds (all of them when `reuse` is false). */
export async function judgeNextToken(models: LlamaModels, m: LoadedModel, request: JudgeRequest): Promise<JudgeResult> {
  const variants = answerTokens(m);
  const tokens = [...models.renderChat(m, request.system, request.prompt), ...variants.noThink] as Token[];
  const sequence = m.judge;
  const held = sequence.contextTokens;
  // At least the last token is evaluated again: its logits are the distribution we read.
  const keep = request.reuse ? Math.min(commonPrefix(held, tokens), tokens.length - 1) : 0;
  if (keep < sequence.nextTokenIndex) await sequence.eraseContextTokenRanges([{ start: keep, end: sequence.nextTokenIndex }]);
  const suffix = tokens.slice(keep);
  const input = suffix.map((t, i) => (i === suffix.length - 1 ? ([t, { generateNext: { probabilities: true } }] as [Token, { generateNext: { probabilities: true } }]) : t));
  const results = await sequence.controlledEvaluate(input);
  const probabilities = results[results.length - 1]?.next?.probabilities;
  if (!probabilities) throw new Error('llama.cpp returned no next-token distribution');
  let yesMass = 0;
  let noMass = 0;
  for (const t of variants.yes) yesMass += probabilities.get(t) ?? 0;
  for (const t of variants.no) noMass += probabilities.get(t) ?? 0;
  return { ...(yesMass + noMass > 0 ? { pYes: yesMass / (yesMass + noMass) } : {}), yesMass, noMass, promptTokens: tokens.length, evaluatedTokens: suffix.length };
}
