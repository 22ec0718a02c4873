import type { EmbedSummary } from '../../../shared/contract/runs';
import type { EngineClient } from '../../../core/app/contract/client';
import type { RepoInfo, RunProgress, SearchResult } from '../../../shared/contract';
import { formatReasons } from '../../../shared/contract/reasons';
import { printable } from '../../../shared/printable';
import type { CliContext } from '../context';

// What `cra search` and `cra embed` do once they run: loaded by searchCommand.ts on action, so
// `cra --version` and `--help` never load the registry, zod or the engine.

/** `cra embed`: embed the chunks without a vector, with a progress line on stderr. */
export async function runEmbedding(ctx: CliContext, { engine, repo }: { engine: EngineClient; repo: RepoInfo }, json: boolean): Promise<void> {
  const stopProgress = engine.on('run/progress', (p: RunProgress) => {
    if (p.kind !== 'embed') return;
    const eta = p.etaSeconds !== undefined ? `, ${p.etaSeconds}s left` : '';
    const rate = p.rate !== undefined ? `, ${p.rate.toFixed(1)} chunks/s` : '';
    const line = `${p.phase}: ${p.done}/${p.total ?? '?'}${rate}${eta}`;
    if (ctx.isTty) process.stderr.write(`\r\x1b[K${line}`);
    else process.stderr.write(`${line}\n`);
  });
  const onSigint = () => engine.cancelAll();
  process.once('SIGINT', onSigint);
  try {
    const { runId } = await engine.request('search/embed', { repoId: repo.id });
    const summary = await engine.wait(runId);
    if (ctx.isTty) process.stderr.write('\r\x1b[K');
    process.stdout.write(json ? `${JSON.stringify(summary, null, 2)}\n` : `${describeSummary(summary)}\n`);
  } finally {
    process.off('SIGINT', onSigint);
    stopProgress();
    await engine.dispose();
  }
}

function describeSummary(summary: unknown): string {
  const s = summary as EmbedSummary;
  return `Embedded ${s.embedded} of ${s.chunks} chunks with ${s.embedderId} (${s.reused} reused from unchanged text, ${s.removed} stale vectors removed) in ${(s.durationMs / 1000).toFixed(1)} s.`;
}

/** The compact listing: rank, path:best line, score, best symbols with line ranges, and why (from the reasons' kinds; control characters escaped). */
export function formatTable(results: readonly SearchResult[], footer: string): string {
  if (results.length === 0) return `No matching files. (${footer})\n`;
  const ats = results.map((r) => (r.bestLine !== null ? `${printable(r.path)}:${r.bestLine}` : printable(r.path)));
  const width = Math.min(66, Math.max(...ats.map((a) => a.length)));
  const lines = results.map((r, i) => {
    const symbols = r.symbols
      .slice(0, 3)
      .map((s) => `${printable(s.name)} ${s.startLine}-${s.endLine}`)
      .join(', ');
    const head = `${String(i + 1).padStart(3)}  ${ats[i]!.padEnd(width)}  ${r.score.toFixed(3)}`;
    const detail = [symbols, printable(formatReasons(r.why))].filter(Boolean).join('  · ');
    return `${head}\n     ${detail}`;
  });
  return `${lines.join('\n')}\n(${footer})\n`;
}
