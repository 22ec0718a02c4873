/**
 * Child process of the index benchmark (so its peak RSS is the indexer's alone): a full index of
 * `root` into a fresh curated file, a no-op re-index, and (with `touch`) a one-file-changed
 * re-index. Prints one JSON object on stdout. Usage: tsx indexChild.ts <root> <curatedFile> [touch].
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../src/core/platform/db/open';
import { createExtractor } from '../src/core/knowledge/indexer/extract/extractor';
import { indexRepository } from '../src/core/knowledge/indexer/indexer';

async function main(): Promise<void> {
  const [root, curatedFile, touch] = process.argv.slice(2);
  if (!root || !curatedFile) throw new Error('usage: indexChild <root> <curatedFile> [touch]');
  // Created on first need, as the repos service does: with parse workers the main thread never needs one.
  let extractor: ReturnType<typeof createExtractor> | undefined;
  const run = async () => {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const summary = await indexRepository({ root, curatedFile, extractor: () => (extractor ??= createExtractor()) });
    const used = process.cpuUsage(cpu);
    return { wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000, summary };
  };
  const full = await run();
  const noop = await run();
  let oneFile: { wallMs: number; cpuMs: number; parsed: number } | null = null;
  if (touch) {
    appendFileSync(join(root, touch), '\n\ndef bench_added_function(value):\n    return value + 1\n');
    const r = await run();
    oneFile = { wallMs: r.wallMs, cpuMs: r.cpuMs, parsed: r.summary.parsed };
  }
  const db = openDatabase(curatedFile, { readOnly: true });
  const lines = db.prepare('select sum(lines) from files where skip_reason is null').pluck().get() as number;
  db.close();
  if (extractor) (await extractor).dispose();
  const { skipped, ...counts } = full.summary;
  process.stdout.write(
    `${JSON.stringify({ full: { wallMs: full.wallMs, cpuMs: full.cpuMs, ...counts, skipped: skipped.length, lines }, noop: { wallMs: noop.wallMs, cpuMs: noop.cpuMs, parsed: noop.summary.parsed }, oneFile, maxRssKb: process.resourceUsage().maxRSS })}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
