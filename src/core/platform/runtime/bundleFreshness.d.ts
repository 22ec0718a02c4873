/** Newest modification time (ms) of the files under `dir`; 0 when it cannot be read. */
export function newestUnder(dir: string): number;
/** True when `bundle` exists and no file under `sourceDir` was modified after it. */
export function bundleIsCurrent(bundle: string, sourceDir: string): boolean;
/** True when `bundle` exists and no file listed in `listFile` (JSON, paths relative to `root`) is newer or missing; no list: all of `<root>/src`. */
export function bundleIsCurrentFor(bundle: string, root: string, listFile: string): boolean;
/** Load `out/main/<bundleName>` when current for src/, else register tsx and load `sourceFile`. */
export function loadBuiltOrSource(bundleName: string, sourceFile: string): void;
/** The CLI entry bin/cra.js runs: `out/cli/main.js` when current for the sources in `out/cli/sources.json` (else all of `<root>/src`) (and CRA_FROM_SOURCE is not 1), else the TypeScript entry. */
export function cliEntry(root?: string, env?: NodeJS.ProcessEnv): { file: string; fromSource: boolean };
