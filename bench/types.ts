/** One measured figure of a benchmark. */
export interface BenchFigure {
  /** Stable name within its suite, e.g. `index.full.filesPerSecond`. */
  name: string;
  value: number;
  /** Unit for people: ms, files/s, MB, ratio... */
  unit: string;
  /** Which direction is an improvement (drives the verdict of --compare). */
  better: 'lower' | 'higher';
  note?: string;
}

/** What a benchmark module receives. */
export interface BenchContext {
  /** A fresh temporary folder for this suite, deleted afterwards. */
  tmpDir: string;
  /** Progress for people, on stderr. */
  log(message: string): void;
}

/** The contract of a `bench/<name>.bench.ts` module: `export async function run(ctx)`. */
export type BenchRun = (ctx: BenchContext) => Promise<BenchFigure[]>;

/** The machine a result file was measured on. */
export interface MachineDescription {
  cpuModel: string;
  cores: number;
  memoryBytes: number;
  node: string;
  os: string;
  arch: string;
  gitSha: string | null;
  gitDirty: boolean | null;
}

/** A whole `npm run bench` result file. */
export interface BenchResultFile {
  format: 'clean-room-bench/1';
  createdAt: string;
  machine: MachineDescription;
  suites: Record<string, { figures: BenchFigure[]; ms: number; error?: string }>;
}
