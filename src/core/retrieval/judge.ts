import type { Reason } from '../../shared/contract/reasons';
import type { LlmClient } from '../llm/client';
import type { CallLogger, TokenLogprob } from '../llm/types';
import type { DecisionRecord } from './decisionLog';
import { judgeFamilyOf, judgePrompt, type JudgeFamily } from './judgePrompts';

/** Why an answer that was not a yes or a no was taken as a no. */
export type DenyCause = 'empty' | 'cut-off' | 'unparseable';

/** How an answer was read: a bare word, a word with punctuation or prose after it, a JSON object, or not at all. */
export type AnswerReading = 'exact' | 'lenient' | 'json' | 'default-deny';

/** The outcome of one binary judgment. */
export interface Judgment {
  verdict: 'yes' | 'no';
  read: AnswerReading;
  /** Set when `read` is default-deny. */
  denyCause?: DenyCause;
  /** P(yes) from the answer token's log-probabilities (softmax over yes and no), when the server returned them. */
  pYes?: number;
  model: string;
  /** The model_calls row of the call. */
  callId?: number;
  /** What the model said, whole. */
  raw: string;
  promptTokens: number;
  completionTokens: number;
}

/** What every judgment of one stage shares. */
export interface JudgeSetup {
  llm: LlmClient;
  /** Stage name of the call (scope, precision_pass1, similarity, …): picks the model and names the call in the log. */
  stage: string;
  /** The stage's yes/no question, e.g. "Is this file needed to carry out the task?". */
  instruct: string;
  /** The task text (first in the prompt, shared by every call of the stage). */
  task: string;
  runId?: string;
  log?: CallLogger;
  signal?: AbortSignal;
  /** Prompt form; default from the model's name (reranker models get the Instruct/Query/Document form). */
  family?: JudgeFamily;
  /** Ask for the JSON schema {"answer": "yes"|"no"}; default for chat models (a reranker answers a bare token). */
  structured?: boolean;
  /** Alternatives per token for P(yes); default 5. */
  topLogprobs?: number;
  /** Token limit; default 16 with structured output, else 4 (a yes or a no is one token). */
  maxTokens?: number;
  /** Calls at once in {@link judgeAll}; default 1. */
  concurrency?: number;
  /** Answers instead of {@link runBinaryJudgment} (an evaluation's reference judge); default: the model. */
  judge?: BinaryJudge;
}

/** One binary judgment of one item: the model's ({@link runBinaryJudgment}) unless an evaluation injects another. */
export type BinaryJudge = (setup: JudgeSetup, document: string) => Promise<Judgment>;

/** The structured-output schema of a judgment. */
export const ANSWER_SCHEMA = {
  type: 'object',
  properties: { answer: { type: 'string', enum: ['yes', 'no'] } },
  required: ['answer'],
  additionalProperties: false,
} as const;

/**
 * Ask one yes/no question about one item (`document`: what the model sees of it, last in the
 * prompt). Thinking is switched off; the answer is read tolerantly ({@link readAnswer}) and
 * anything that is neither yes nor no is a recorded default-deny. A failed call throws (the
 * client logged it): a server that is down must stop the run, not deny every item.
 */
export async function runBinaryJudgment(setup: JudgeSetup, document: string): Promise<Judgment> {
  const model = setup.llm.resolve({ stage: setup.stage });
  const family = setup.family ?? judgeFamilyOf(model.model);
  const structured = setup.structured ?? family === 'chat';
  const { system, prompt } = judgePrompt(family, { instruct: setup.instruct, query: setup.task, document });
  const result = await setup.llm.complete(prompt, {
    stage: setup.stage,
    model,
    system,
    runId: setup.runId,
    log: setup.log,
    signal: setup.signal,
    temperature: 0,
    think: false,
    maxTokens: setup.maxTokens ?? (structured ? 16 : 4),
    logprobs: setup.topLogprobs ?? 5,
    ...(structured ? { format: ANSWER_SCHEMA as unknown as Record<string, unknown> } : {}),
  });
  const reading = readAnswer(result.text, result.doneReason);
  const pYes = result.logprobs ? pYesFrom(result.logprobs) : undefined;
  return {
    ...(reading.verdict ? { verdict: reading.verdict, read: reading.read } : { verdict: 'no' as const, read: 'default-deny' as const, denyCause: reading.cause }),
    ...(pYes !== undefined ? { pYes } : {}),
    model: result.model,
    ...(result.callId !== undefined ? { callId: result.callId } : {}),
    raw: result.text,
    promptTokens: result.promptTokens,
    completionTokens: result.completionTokens,
  };
}

/** Judge many items with at most `setup.concurrency` calls at once; results in input order whatever order calls finish. */
export async function judgeAll(setup: JudgeSetup, documents: readonly string[]): Promise<Judgment[]> {
  const out = new Array<Judgment>(documents.length);
  let next = 0;
  const worker = async () => {
    while (next < documents.length) {
      const i = next++;
      out[i] = await (setup.judge ?? runBinaryJudgment)(setup, documents[i] as string);
    }
  };
  const width = Math.max(1, Math.min(setup.concurrency ?? 1, documents.length));
  await Promise.all(Array.from({ length: width }, worker));
  return out;
}

/** A reply read: a verdict and how it was read, or why there is none. */
export type AnswerRead = { verdict: 'yes' | 'no'; read: Exclude<AnswerReading, 'default-deny'> } | { verdict?: undefined; cause: DenyCause };

/** What a reply said, read tolerantly: the verdict and how it was read, or why there is none. */
export function readAnswer(text: string, doneReason?: string): AnswerRead {
  const cutOff = doneReason === 'length';
  const deny = (cause: DenyCause): AnswerRead => ({ cause: cutOff ? 'cut-off' : cause });
  // A closed thinking block is not the answer; an open one means the limit cut the model off mid-thought.
  const answer = text.replace(/<think>[\s\S]*?<\/think>/gi, '');
  if (/<think>/i.test(answer)) return deny('unparseable');
  const t = answer.trim();
  if (!t) return deny('empty');
  const word = t.toLowerCase();
  if (word === 'yes' || word === 'no') return { verdict: word, read: 'exact' };
  const json = firstJsonObject(t);
  if (json !== undefined) {
    const value = typeof json === 'object' && json !== null ? (json as Record<string, unknown>).answer : undefined;
    const v = typeof value === 'string' ? value.trim().toLowerCase() : typeof value === 'boolean' ? (value ? 'yes' : 'no') : '';
    return v === 'yes' || v === 'no' ? { verdict: v, read: 'json' } : deny('unparseable');
  }
  // "Yes." / "YES" / "yes, because…" / "**No**" / "Answer: yes".
  const m = /^[\s"'`*_([]*(?:(?:answer|verdict)\s*[:=-]\s*[\s"'`*_]*)?(yes|no)\b/i.exec(t);
  if (m) return { verdict: (m[1] as string).toLowerCase() as 'yes' | 'no', read: 'lenient' };
  return deny('unparseable');
}

/** The first balanced `{…}` of a text (prose or a ```json fence around it allowed), parsed; undefined when none parses. */
function firstJsonObject(text: string): unknown {
  const start = text.indexOf('{');
  if (start < 0 || !/^(?:```(?:json)?\s*)?$/i.test(text.slice(0, start).trim())) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) {
      try {
        return JSON.parse(text.slice(start, i + 1)) as unknown;
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

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

/** The reason a judgment gives its item: judged relevant, judged not relevant, or a default-deny with its cause. */
export function judgmentReason(j: Judgment): Reason {
  const probability = j.pYes !== undefined ? { probability: j.pYes } : {};
  if (j.read === 'default-deny') return { kind: 'default-deny', detail: { model: j.model, cause: j.denyCause ?? 'unparseable' } };
  return j.verdict === 'yes' ? { kind: 'judged-relevant', detail: { model: j.model, ...probability } } : { kind: 'judged-irrelevant', detail: { model: j.model, ...probability } };
}

/** The facts of a judgment kept beside a decision (how the answer was read, P(yes), tokens). */
export function judgmentFacts(j: Judgment): NonNullable<DecisionRecord['judgment']> {
  return { verdict: j.verdict, read: j.read, ...(j.denyCause ? { denyCause: j.denyCause } : {}), ...(j.pYes !== undefined ? { pYes: j.pYes } : {}), raw: j.raw.slice(0, 200) };
}
