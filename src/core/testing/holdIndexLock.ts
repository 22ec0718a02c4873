/**
 * Test support: a separate process that takes the index lock of the curated file named in argv[2],
 * prints `locked` and holds it until it is killed (or, with `release-on-stdin`, until its stdin
 * closes), so tests can play "another index of this repository is running".
 */
import { acquireIndexLock } from '../knowledge/indexer/indexLock';

acquireIndexLock(process.argv[2]!, { waitMs: 0 }).then(
  (lock) => {
    process.stdout.write('locked\n');
    const keepAlive = setInterval(() => undefined, 60_000);
    if (process.argv[3] === 'release-on-stdin') {
      process.stdin.resume();
      process.stdin.on('end', () => {
        lock.release();
        clearInterval(keepAlive);
      });
    }
  },
  (error: unknown) => {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(2);
  },
);
