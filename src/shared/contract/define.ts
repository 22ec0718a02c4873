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

/** One pushed event of the contract; the payload is a phantom type. */
export interface EventDef<P> {
  readonly summary: string;
  readonly payload?: P;
}

/** Declare an event: `event<Payload>()(summary)`. */
export function event<P>() {
  return (summary: string): EventDef<P> => ({ summary });
}
