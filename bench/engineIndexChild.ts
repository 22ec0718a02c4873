/**
 * Child process of the scale benchmark (so its peak RSS is one engine's indexing alone): `root`
 * added to an engine as the product wires it (`createCore` over `dataDir`, the host's client) with
 * `repos/add`, then a no-op `repos/reindex`. Prints one JSON object on stdout: the figures of
 * index.bench.ts's ChildResult and the repository's index file. Usage: tsx engineIndexChild.ts
 * <root> <dataDir>.
 */
import { repoPaths } from '../src/core/platform/layout';
import { benchEngine } from './engine';

async function main(): Promise<void> {
  const [root, dataDir] = process.argv.slice(2);
  if (!root || !dataDir) throw new Error('usage: engineIndexChild <root> <dataDir>');
  const engine = benchEngine(dataDir);
  try {
    let started = performance.now();
    let cpu = process.cpuUsage();
    const added = await engine.request('repos/add', { path: root });
    const { skipped, ...counts } = await engine.wait(added.runId, 'index');
    let used = process.cpuUsage(cpu);
    const full = { wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000, ...counts, skipped: skipped.length };
    started = performance.now();
    cpu = process.cpuUsage();
    const again = await engine.request('repos/reindex', { repoId: added.repo.id, full: false });
    const noopSummary = await engine.wait(again.runId, 'index');
    used = process.cpuUsage(cpu);
    const noop = { wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000, parsed: noopSummary.parsed };
    const curatedFile = repoPaths(dataDir, added.repo.id).curated;
    process.stdout.write(`${JSON.stringify({ full, noop, oneFile: null, maxRssKb: process.resourceUsage().maxRSS, curatedFile })}\n`);
  } finally {
    await engine.dispose();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
