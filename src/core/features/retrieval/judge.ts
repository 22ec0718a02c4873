import { AppError } from '../../../shared/contract';
import type { Reason } from '../../../shared/contract/reasons';
import type { JudgedItem } from '../../../shared/contract/retrieval';
import type { LlmClient } from '../../platform/llm/client';
import type { ResolvedModel } from '../../platform/llm/router';
import type { CallLogger } from '../../platform/llm/types';
import { pYesFrom } from '../../platform/llm/pYes';
import type { TokenMeter } from './budget';
import type { DecisionRecord } from './decisionLog';
import { judgeFamilyOf, judgePrompt, type JudgeFamily } from './judgePrompts';

/** Why an answer that was not a yes or a no was taken as a no (`call-failed`: the call itself failed or timed out). */
export type DenyCause = 'empty' | 'cut-off' | 'unparseable' | 'call-failed';

/** How an answer was read: the bare word, the structured-output object, the next-token distribution (built-in runtime), or not at all. */
export type AnswerReading = 'exact' | 'json' | 'next-token' | 'default-deny';

/** The outcome of one binary judgment. */
export interface Judgment {
  verdict: 'yes' | 'no';
  read: AnswerReading;
  /** Set when `read` is default-deny. */
  denyCause?: DenyCause;
  /** P(yes) from the answer token's log-probabilities (softmax over yes and no), when the server returned them; from the next-token distribution in the built-in runtime. */
  pYes?: number;
  model: string;
  /** The model_calls row of the call. */
  callId?: number;
  /** What the model said, whole (the error message when the call failed). */
  raw: string;
  /** The error code of a failed call (MODEL_ERROR: server error, timeout, malformed reply). */
  errorCode?: string;
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
  /** The model to ask instead of the stage's assigned one (`cra models check --model`). */
  model?: ResolvedModel;
  /** Calls at once in {@link judgeAll}; default 1. */
  concurrency?: number;
  /** Answers instead of {@link runBinaryJudgment} (an evaluation's reference judge); default: the model. */
  judge?: BinaryJudge;
  /** Per-call timeout in ms (default: the model's [models].timeout_s); a call past it is a default-deny. */
  timeoutMs?: number;
  /** Where the server's exact token counts go (under `stage`). */
  meter?: TokenMeter;
  /** Called after each judgment of {@link judgeAll} with how many are done of how many, and the judgment with its item when judgeAll was given the items. */
  onJudged?: (done: number, total: number, judged?: Judged) => void;
}

/** A judgment with the item it was about. */
export interface Judged {
  judgment: Judgment;
  item: JudgedItem;
}

/** A file as a judged item. */
export function fileItem(path: string): JudgedItem {
  return { subjectKind: 'file', path, subject: path };
}

/** Judgment progress of a stage: the call stage (scope, precision_pass2…), done and total of that pass, the judgment with its item. */
export type OnJudged = (stage: string, done: number, total: number, judged?: Judged) => void;

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
 * Errors that stop a run instead of denying the item: the user cancelled, no server answers, the
 * model is not installed, the config has no model. Each would deny every item for the same reason
 * that has nothing to do with the item, so the run stops and says the fix.
 */
const FATAL_CODES = new Set(['CANCELLED', 'OLLAMA_UNREACHABLE', 'MODEL_NOT_FOUND', 'CONFIG_MISSING', 'CONFIG_INVALID']);

/**
 * Ask one yes/no question about one item (`document`: what the model sees of it, last in the
 * prompt). Thinking is switched off. The answer must be exactly "yes" or "no" after trimming
 * (case ignored), or the structured-output object {"answer": "yes"|"no"} and nothing else
 * ({@link readAnswer}); anything else — "Yes.", "yes, because…", an empty or cut-off answer, a
 * thinking block, a call that failed or timed out — is a default-deny, recorded with its cause
 * (the call is in the call log either way). Cancellation, an unreachable server, a missing model
 * and a missing config stop the run instead (see FATAL_CODES).
 */
export async function runBinaryJudgment(setup: JudgeSetup, document: string): Promise<Judgment> {
  const model = setup.model ?? setup.llm.resolve({ stage: setup.stage });
  const family = setup.family ?? judgeFamilyOf(model.model);
  const structured = setup.structured ?? family === 'chat';
  const { system, prompt } = judgePrompt(family, { instruct: setup.instruct, query: setup.task, document });
  if (setup.llm.judgesInProcess({ model })) return nextTokenJudgment(setup, model, system, prompt);
  let result;
  try {
    result = await setup.llm.complete(prompt, {
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
      ...(setup.timeoutMs !== undefined ? { timeoutMs: setup.timeoutMs } : {}),
      ...(structured ? { format: ANSWER_SCHEMA as unknown as Record<string, unknown> } : {}),
    });
  } catch (error) {
    const code = error instanceof AppError ? error.code : 'INTERNAL';
    if (FATAL_CODES.has(code) || setup.signal?.aborted) throw error;
    const message = error instanceof Error ? error.message : String(error);
    const failed: Judgment = { verdict: 'no', read: 'default-deny', denyCause: 'call-failed', model: model.model, raw: message, errorCode: code, promptTokens: 0, completionTokens: 0 };
    setup.meter?.add(setup.stage, failed);
    return failed;
  }
  const reading = readAnswer(result.text, result.doneReason);
  const pYes = result.logprobs ? pYesFrom(result.logprobs) : undefined;
  setup.meter?.add(setup.stage, result);
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

/**
 * A judgment in the built-in runtime: the verdict is the likelier of yes and no in the next-token
 * distribution after the prompt (P(yes) ≥ 0.5 is yes), nothing is generated, and the prompt prefix
 * the stage's judgments share (system + task) is evaluated once. No probability on any yes/no
 * token is a default-deny (`unparseable`). Failures are handled as in {@link runBinaryJudgment}.
 */
async function nextTokenJudgment(setup: JudgeSetup, model: ResolvedModel, system: string, prompt: string): Promise<Judgment> {
  let result;
  try {
    result = await setup.llm.judgeNextToken(prompt, { stage: setup.stage, model, system, runId: setup.runId, log: setup.log, signal: setup.signal, ...(setup.timeoutMs !== undefined ? { timeoutMs: setup.timeoutMs } : {}) });
  } catch (error) {
    const code = error instanceof AppError ? error.code : 'INTERNAL';
    if (FATAL_CODES.has(code) || setup.signal?.aborted) throw error;
    const failed: Judgment = { verdict: 'no', read: 'default-deny', denyCause: 'call-failed', model: model.model, raw: error instanceof Error ? error.message : String(error), errorCode: code, promptTokens: 0, completionTokens: 0 };
    setup.meter?.add(setup.stage, failed);
    return failed;
  }
  const counts = { promptTokens: result.promptTokens, completionTokens: 0 };
  setup.meter?.add(setup.stage, counts);
  const common = { model: result.model, ...(result.callId !== undefined ? { callId: result.callId } : {}), ...counts };
  if (result.pYes === undefined) return { verdict: 'no', read: 'default-deny', denyCause: 'unparseable', raw: 'no yes/no token had any probability', ...common };
  return { verdict: result.pYes >= 0.5 ? 'yes' : 'no', read: 'next-token', pYes: result.pYes, raw: `P(yes)=${result.pYes.toFixed(4)}`, ...common };
}

/**
 * Judge many items with at most `setup.concurrency` calls at once; results in input order whatever
 * order calls finish. `items` (one per document) name what each document is, for `onJudged`.
 */
export async function judgeAll(setup: JudgeSetup, documents: readonly string[], items?: readonly JudgedItem[]): Promise<Judgment[]> {
  const out = new Array<Judgment>(documents.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < documents.length) {
      const i = next++;
      const judgment = await (setup.judge ?? runBinaryJudgment)(setup, documents[i] as string);
      out[i] = judgment;
      const item = items?.[i];
      setup.onJudged?.(++done, documents.length, item ? { judgment, item } : undefined);
    }
  };
  const width = Math.max(1, Math.min(setup.concurrency ?? 1, documents.length));
  await Promise.all(Array.from({ length: width }, worker));
  return out;
}

/** A reply read: a verdict and how it was read, or why there is none. */
export type AnswerRead = { verdict: 'yes' | 'no'; read: Exclude<AnswerReading, 'default-deny'> } | { verdict?: undefined; cause: DenyCause };

/**
 * What a reply said, read strictly: after trimming, exactly "yes" or "no" (case ignored), or the
 * whole reply a JSON object whose `answer` is "yes" or "no" (the structured-output form). Nothing
 * else is read: "Yes.", "yes, because…", a fenced or prose-wrapped JSON object, a thinking block
 * before the word — each is `unparseable`; an empty reply is `empty`; a reply the token limit
 * cut (`doneReason` length) is `cut-off`.
 */
export function readAnswer(text: string, doneReason?: string): AnswerRead {
  const deny = (cause: DenyCause): AnswerRead => ({ cause: doneReason === 'length' ? 'cut-off' : cause });
  const t = text.trim();
  if (!t) return deny('empty');
  const word = t.toLowerCase();
  if (word === 'yes' || word === 'no') return { verdict: word, read: 'exact' };
  if (t.startsWith('{') && t.endsWith('}')) {
    let json: unknown;
    try {
      json = JSON.parse(t);
    } catch {
      return deny('unparseable');
    }
    const value = typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>).answer : undefined;
    const v = typeof value === 'string' ? value.trim().toLowerCase() : '';
    if (v === 'yes' || v === 'no') return { verdict: v, read: 'json' };
  }
  return deny('unparseable');
}

/** The reason a judgment gives its item: judged relevant, judged not relevant, or a default-deny with its cause. */
export function judgmentReason(j: Judgment): Reason {
  const probability = j.pYes !== undefined ? { probability: j.pYes } : {};
  if (j.read === 'default-deny') return { kind: 'default-deny', detail: { model: j.model, cause: j.denyCause ?? 'unparseable' } };
  return j.verdict === 'yes' ? { kind: 'judged-relevant', detail: { model: j.model, ...probability } } : { kind: 'judged-irrelevant', detail: { model: j.model, ...probability } };
}

/** The facts of a judgment kept beside a decision (how the answer was read, P(yes), tokens). */
export function judgmentFacts(j: Judgment): NonNullable<DecisionRecord['judgment']> {
  return { verdict: j.verdict, read: j.read, ...(j.denyCause ? { denyCause: j.denyCause } : {}), ...(j.errorCode ? { errorCode: j.errorCode } : {}), ...(j.pYes !== undefined ? { pYes: j.pYes } : {}), raw: j.raw.slice(0, 200) };
}
