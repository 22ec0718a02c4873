/**
 * One of our modules, loaded on first use: `load()` gives its exports, loading it once.
 *
 * The same TypeScript runs in three ways, and no one call loads a module lazily in all of them:
 * `viaRequire` (a `() => require('./x')`) works where the sources run through tsx's CommonJS hook
 * (`cra` from the sources, the benches) and in the CLI bundle, where esbuild makes it the module's
 * initialiser, run when called (scripts/build-cli.mjs); under Vite (the tests, the app's main bundle)
 * require() cannot load a .ts file and says MODULE_NOT_FOUND, so `viaImport` (a `() => import('./x')`)
 * loads it there. Both must name the same module.
 */
export function lazyModule<T>(viaRequire: () => T, viaImport: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  const load = async (): Promise<T> => {
    try {
      return viaRequire();
    } catch (error) {
      if ((error as { code?: string }).code !== 'MODULE_NOT_FOUND') throw error;
      return viaImport();
    }
  };
  return () => (loaded ??= load());
}
