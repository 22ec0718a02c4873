import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { requests } from './api';
import { request } from './define';

describe('request definitions build their schema on first use', () => {
  it('calls the builder when input is first read, once', () => {
    let built = 0;
    const schema = z.object({ id: z.string() }).strict();
    const def = request<{ ok: boolean }>()('A request.', () => (built++, schema), { id: 'x' });
    expect(built).toBe(0);
    expect(def.input).toBe(schema);
    expect(def.input).toBe(schema);
    expect(built).toBe(1);
    expect(def.input.safeParse({ id: 'x' }).success).toBe(true);
  });

  it('gives every request of the contract a lazily built zod schema', () => {
    for (const [key, def] of Object.entries(requests)) {
      expect(typeof Object.getOwnPropertyDescriptor(def, 'input')?.get, key).toBe('function');
      expect(def.input, key).toBeInstanceOf(z.ZodType);
    }
  });
});
