import type { HostKind } from '../../shared/contract';

/**
 * What a host (Electron, `cra serve`, the CLI, tests) gives the engine. Core never imports a host:
 * anything host-specific comes in through here.
 */
export interface HostPorts {
  host: HostKind;
  /** Where all state lives (CRA_HOME / --data-dir / the platform default). */
  dataDir: string;
  /** A native folder picker; absent in the browser and the CLI. */
  pickFolder?: (title?: string) => Promise<string | null>;
  /** Path of a better-sqlite3 binary built for this runtime (Electron), when not the default. */
  sqliteNativeBinding?: string;
  /** How the engine behaves for this host; default {@link hostPolicy} of `host`. */
  policy?: HostPolicy;
}

/**
 * Every way the engine's behaviour differs between hosts, decided once at start (`createCore`).
 * Features read these fields; none compares the host's name.
 */
export interface HostPolicy {
  /**
   * Paths come from a form field (the app), not from a shell with a working directory: a relative
   * path is refused and `~` is expanded, as Repositories → Add does.
   */
  pathsFromForms: boolean;
  /** A repository added without saying is watched (re-indexed when its files change). */
  watchByDefault: boolean;
  /** Embeddings follow every index (when the embeddings switch is on at the time). */
  embedAfterIndex: boolean;
  /** The model server is checked at start, so the status bar shows it (and may start it). */
  checkModelServerAtStart: boolean;
  /** How an evaluation report names where it was started. */
  evalVia: 'app' | 'cli';
}

/** The policy of a host kind: the app hosts (Electron, `cra serve`) against the CLI and tests. */
export function hostPolicy(host: HostKind): HostPolicy {
  const app = host === 'electron' || host === 'serve';
  return { pathsFromForms: app, watchByDefault: app, embedAfterIndex: app, checkModelServerAtStart: app, evalVia: app ? 'app' : 'cli' };
}
