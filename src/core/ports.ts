import type { HostKind } from '../shared/contract';

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
}
