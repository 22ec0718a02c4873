import type { ChatTraceStep } from '../../../shared/contract/chat';
import type { ChatPipeline } from './pipeline';

/*
 * The limits of one chat question (issue #22, [chat] in config.toml): the answer a turn stores and
 * shows is cut at `max_answer_kb` with a visible note, and the model calls of all its steps
 * together stop at `max_model_calls`, with an error that names the pipeline's file and the steps
 * that repeat.
 */

/** The defaults of [chat] (the config schema has the same). */
export const DEFAULT_MAX_ANSWER_KB = 256;
export const DEFAULT_MAX_MODEL_CALLS = 40;

/** The limits a turn runs under. */
export interface TurnLimits {
  /** KiB of answer stored and shown; the rest is cut. */
  maxAnswerKb: number;
  /** Model calls of the whole question. */
  maxModelCalls: number;
}

/** Thrown by a model call past the question's budget; the call is not made. */
export class CallBudgetExceeded extends Error {
  constructor(readonly budget: number) {
    super(`the question used its budget of ${budget} model calls`);
  }
}

/** The note an answer cut at the cap ends with (stored and shown with it). */
export function cutNote(maxKb: number): string {
  return `\n\n(answer cut at ${maxKb} KB: the model wrote more; [chat].max_answer_kb in config.toml sets the limit)`;
}

/**
 * Keeps what a turn shows under `maxKb` KiB of UTF-8: `take` returns the part of a delta that
 * still fits (whole characters), then nothing; `dropped` counts the bytes left out.
 */
export class AnswerCap {
  private room: number;
  cut = false;
  dropped = 0;

  constructor(readonly maxKb: number) {
    this.room = maxKb * 1024;
  }

  take(text: string): string {
    if (this.cut) {
      this.dropped += Buffer.byteLength(text);
      return '';
    }
    const bytes = Buffer.byteLength(text);
    if (bytes <= this.room) {
      this.room -= bytes;
      return text;
    }
    let kept = '';
    for (const ch of text) {
      const size = Buffer.byteLength(ch);
      if (size > this.room) break;
      this.room -= size;
      kept += ch;
    }
    this.cut = true;
    this.dropped += bytes - Buffer.byteLength(kept);
    return kept;
  }
}

/**
 * The steps that repeat at the end of a turn's steps (the shortest period that occurs at least
 * twice at the tail), as `id (line N) → … → id`; undefined when the tail does not repeat.
 */
export function describeLoop(steps: readonly Pick<ChatTraceStep, 'id'>[], pipeline: Pick<ChatPipeline, 'steps'>): string | undefined {
  const ids = steps.map((s) => s.id);
  const n = ids.length;
  for (let p = 1; p * 2 <= n; p++) {
    let repeats = true;
    for (let i = 1; i <= p && repeats; i++) repeats = ids[n - i] === ids[n - i - p];
    if (repeats) return [...ids.slice(n - p).map((id) => stepName(id, pipeline)), ids[n - p]!].join(' → ');
  }
  return undefined;
}

function stepName(id: string, pipeline: Pick<ChatPipeline, 'steps'>): string {
  const line = pipeline.steps.get(id)?.line;
  return line ? `${id} (line ${line})` : id;
}

/**
 * The error of a turn stopped by a limit: which pipeline file, the steps that loop (or the step
 * that was running), and the fix.
 */
export function loopError(pipeline: Pick<ChatPipeline, 'name' | 'file' | 'steps'>, steps: readonly Pick<ChatTraceStep, 'id'>[], limit: string, raise: string): string {
  const loop = describeLoop(steps, pipeline);
  const last = steps.at(-1);
  const where = loop ? `its steps loop ${loop}` : last ? `the step ${stepName(last.id, pipeline)} was running` : 'no step had ended';
  return `The chat pipeline "${pipeline.name}" (${pipeline.file}) ${limit}: ${where}. ${loop ? 'Give the loop an exit (a loop_guard step, as the built-in default pipeline has), or ask with another pipeline' : raise}.`;
}
