import type { z } from 'zod';

/**
 * One request of the contract: its zod input schema, an example input (used by the contract test
 * and as documentation) and, as a phantom type, its output. The schema is built when `input` is
 * first read (see {@link request}).
 */
export interface RequestDef<S extends z.ZodType, O> {
  readonly input: S;
  readonly example: z.input<S>;
  readonly summary: string;
  /** Phantom: never read at run time. */
  readonly output?: O;
}

/**
 * Declare a request: `request<Output>()(summary, () => schema, example)`. The schema is built on the
 * first read of `input` and kept: building every zod schema of the contract cost each engine start
 * (each CLI command) ~12–30 ms, while a command validates the two or three requests it sends.
 */
export function request<O>() {
  return <S extends z.ZodType>(summary: string, build: () => S, example: z.input<S>): RequestDef<S, O> => {
    let input: S | undefined;
    return {
      get input() {
        return (input ??= build());
      },
      example,
      summary,
    };
  };
}

/**
 * Parse options for a schema a process checks a few times (a request's input, a config file, a
 * pipeline's settings): zod's fast path for an object schema is code generated with `new Function`
 * on its first parse, which V8 compiles in every process and no code cache keeps. A CLI command
 * validates each of its schemas once or twice, so generating it costs more than it saves (~4 ms
 * of `cra search`, more in `cra chat`); the other path checks the same and gives the same result.
 */
export const PARSE_ONCE = { jitless: true } as const;

/** One pushed event of the contract; the payload is a phantom type. */
export interface EventDef<P> {
  readonly summary: string;
  readonly payload?: P;
}

/** Declare an event: `event<Payload>()(summary)`. */
export function event<P>() {
  return (summary: string): EventDef<P> => ({ summary });
}
