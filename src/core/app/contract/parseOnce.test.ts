import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Handlers } from '../../../shared/contract';
import { loadPipelines } from '../../features/chat';
import { validateConfig } from '../../platform/config/load';
import { packageRoot } from '../../platform/paths';
import { dispatch } from './dispatch';

/**
 * Issue #25: a CLI command checks each schema once or twice, so the checks a start makes (a
 * request's input, the config file, a chat pipeline's settings) take zod's path that generates no
 * code (`PARSE_ONCE`): its fast path is a function built with `new Function`, compiled anew in
 * every process. Counted by wrapping the global `Function`, which zod reads when it generates one.
 */
describe('the schema checks of a start generate no code', () => {
  const original = globalThis.Function;
  let generated: string[] = [];
  beforeEach(() => {
    generated = [];
    globalThis.Function = new Proxy(original, {
      construct(target, args: string[]) {
        generated.push(String(args.at(-1)).slice(0, 80));
        return Reflect.construct(target, args) as object;
      },
      apply(target, self, args: string[]) {
        generated.push(String(args.at(-1)).slice(0, 80));
        return Reflect.apply(target, self, args) as unknown;
      },
    });
  });
  afterEach(() => {
    globalThis.Function = original;
  });

  it("a request's input, checked by dispatch", async () => {
    const handlers = { 'search/query': async (input: unknown) => input } as unknown as Handlers;
    const envelope = await dispatch(handlers, 'search/query', { repoId: 'r', query: 'json decoder', limit: 5, mode: 'keyword' });
    expect(envelope).toEqual({ ok: true, value: { repoId: 'r', query: 'json decoder', limit: 5, mode: 'keyword' } });
    const refused = await dispatch(handlers, 'search/query', { repoId: 'r', query: 'x', mode: 'fuzzy' });
    expect(refused.ok).toBe(false);
    expect(generated).toEqual([]);
  });

  it('a config file, and the built-in chat pipelines', () => {
    expect(validateConfig({ retrieval: { top_k: 7 } }, 'config.toml').retrieval.top_k).toBe(7);
    expect(() => validateConfig({ retrieval: { top_k: 'many' } }, 'config.toml')).toThrow(/top_k/);
    const set = loadPipelines({ builtinDir: join(packageRoot(), 'resources', 'pipelines') });
    expect(set.problems).toEqual([]);
    expect(set.pipelines.has('default')).toBe(true);
    expect(generated).toEqual([]);
  });
});
