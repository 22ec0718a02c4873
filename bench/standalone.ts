import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { BenchRun } from './types';

/**
 * Let a suite also run on its own (`npx tsx bench/<name>.bench.ts`): when `file` is the script
 * node was started with, run the suite in a fresh temporary folder and print its figures.
 */
export function runIfMain(file: string, name: string, run: BenchRun): void {
  if (!process.argv[1] || basename(process.argv[1]) !== basename(file)) return;
  const tmpDir = mkdtempSync(join(tmpdir(), `cra-bench-${name}-`));
  run({ tmpDir, log: (m) => process.stderr.write(`${name}: ${m}\n`) })
    .then(
      (figures) => process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`),
      (error: unknown) => {
        process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
        process.exitCode = 1;
      },
    )
    .finally(() => rmSync(tmpDir, { recursive: true, force: true }));
}
