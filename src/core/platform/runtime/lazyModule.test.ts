import { describe, expect, it } from 'vitest';
import { lazyModule } from './lazyModule';
import type * as LazyModule from './lazyModule';

describe('lazyModule', () => {
  it('loads on the first call only, through require() where that works', async () => {
    let required = 0;
    let imported = 0;
    const load = lazyModule(
      () => ({ n: ++required }),
      async () => ({ n: ++imported }),
    );
    expect(required).toBe(0);
    expect(await load()).toEqual({ n: 1 });
    expect(await load()).toBe(await load());
    expect([required, imported]).toEqual([1, 0]);
  });

  it('imports the module where require() cannot find it (a .ts file under Vite), and only then', async () => {
    // Under Vitest, require() of a TypeScript file fails as it would in the tests' module graph.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const load = lazyModule(() => require('./lazyModule') as typeof LazyModule, () => import('./lazyModule'));
    expect(typeof (await load()).lazyModule).toBe('function');
    const broken = lazyModule<unknown>(
      () => {
        throw new SyntaxError('Unexpected token');
      },
      async () => ({}),
    );
    await expect(broken()).rejects.toThrow(SyntaxError);
  });
});
