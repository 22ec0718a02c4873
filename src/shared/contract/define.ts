import type { z } from 'zod';

/**
 * One request of the contract: its zod input schema, an example input (used by the contract test
 * and as documentation) and, as a phantom type, its output.
 */
export interface RequestDef<S extends z.ZodType, O> {
  readonly input: S;
  readonly example: z.input<S>;
  readonly summary: string;
  /** Phantom: never read at run time. */
  readonly output?: O;
}

/** Declare a request: `request<Output>()(summary, schema, example)`. */
export function request<O>() {
  return <S extends z.ZodType>(summary: string, input: S, example: z.input<S>): RequestDef<S, O> => ({
    input,
    example,
    summary,
  });
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
