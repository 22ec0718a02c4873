import type { TokenLogprob } from './types';

const bareWord = (token: string) => token.toLowerCase().replace(/^[^a-z]+|[^a-z]+$/g, '');

/**
 * P(yes) from token log-probabilities: at the first answer token that reads yes or no (outside a
 * thinking block), the softmax over the probability mass of yes-tokens and no-tokens among the
 * chosen token and its alternatives ("yes", " Yes", "YES" all count as yes). Undefined when no
 * such token is there.
 */
export function pYesFrom(logprobs: readonly TokenLogprob[]): number | undefined {
  let text = '';
  for (const t of logprobs) {
    const thinking = text.includes('<think>') && !text.includes('</think>');
    text += t.token;
    const w = bareWord(t.token);
    if (thinking || (w !== 'yes' && w !== 'no')) continue;
    let yes = 0;
    let no = 0;
    const seen = new Set<string>();
    for (const alt of [{ token: t.token, logprob: t.logprob }, ...t.top]) {
      if (seen.has(alt.token)) continue;
      seen.add(alt.token);
      const a = bareWord(alt.token);
      if (a === 'yes') yes += Math.exp(alt.logprob);
      else if (a === 'no') no += Math.exp(alt.logprob);
    }
    return yes + no > 0 ? yes / (yes + no) : undefined;
  }
  return undefined;
}
