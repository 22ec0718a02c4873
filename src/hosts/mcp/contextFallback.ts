import type { ContextPackage, DroppedItem, PackageFile, PackageItem, Reason, RepoInfo, SearchResult } from '../../shared/contract';
import type { EngineClient } from './engine';

/** Search hits a model-free package looks at. */
const CANDIDATES = 20;
/** Best symbols taken in full per file. */
const SYMBOLS_PER_FILE = 3;
/** Lines around the best line when a hit has no symbol. */
const WINDOW = 40;
/** The longest item (lines); a longer symbol is cut to its head. */
const MAX_ITEM_LINES = 300;

/** Tokens of a text as the package counts them (about four characters a token). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Reasons that say the file itself matched (tier 1); a hit with only graph reasons is tier 2. */
const DIRECT = new Set<Reason['kind']>(['text-match', 'path-match', 'file-text-match', 'definition', 'semantic-match', 'named-in-task', 'past-commits']);

/** Line ranges of a hit: its best symbols, else a window around its best line, else its head; merged and capped. */
function ranges(hit: SearchResult, lines: number): Array<{ start: number; end: number; symbol?: SearchResult['symbols'][number] }> {
  const picked: Array<{ start: number; end: number; symbol?: SearchResult['symbols'][number] }> = hit.symbols
    .slice(0, SYMBOLS_PER_FILE)
    .map((s) => ({ start: s.startLine, end: Math.min(s.endLine, s.startLine + MAX_ITEM_LINES - 1), symbol: s }));
  if (picked.length === 0) {
    const at = hit.bestLine ?? 1;
    picked.push({ start: Math.max(1, at - WINDOW / 4), end: at + (WINDOW * 3) / 4 });
  }
  // In source order; a range inside one already taken (a method of a taken class) adds nothing.
  const kept: typeof picked = [];
  for (const r of picked.map((p) => ({ ...p, end: Math.min(p.end, lines) })).sort((a, b) => a.start - b.start || b.end - a.end)) {
    if (r.start <= r.end && !kept.some((k) => k.start <= r.start && k.end >= r.end)) kept.push(r);
  }
  return kept;
}

/**
 * The context package without any model (no judge configured, or models not wanted): the search's
 * best files in rank order, each with its best symbols in full (or the lines around its best line),
 * until the token budget is spent; what does not fit is listed as dropped with the tokens it needed.
 * Tier 1: the file itself matched the task; tier 2: it came in through imports or co-change only.
 * There are no judgments, so no P(yes).
 */
export async function modelFreePackage(engine: EngineClient, repo: RepoInfo, task: string, budget: number): Promise<ContextPackage> {
  const { results } = await engine.request('search/query', { repoId: repo.id, query: task.slice(0, 2000), limit: CANDIDATES });
  const files: PackageFile[] = [];
  const dropped: DroppedItem[] = [];
  let used = 0;
  for (const [rank, hit] of results.entries()) {
    const view = await engine.request('repos/file', { repoId: repo.id, path: hit.path, maxContentBytes: 1_000_000 }).catch(() => null);
    if (!view?.content) continue;
    const all = view.content.split('\n');
    const reasons: Reason[] = [{ kind: 'seed', detail: { rank: rank + 1 } }, ...hit.why];
    const headerTokens = estimateTokens(`## ${hit.path}\n`);
    const items: PackageItem[] = [];
    for (const r of ranges(hit, all.length)) {
      const text = all.slice(r.start - 1, r.end).join('\n');
      const tokens = estimateTokens(text);
      const symbol = r.symbol ? { qualifiedName: r.symbol.name, kind: r.symbol.kind, role: 'primary' as const } : undefined;
      const left = budget - used - (items.length === 0 ? headerTokens : 0);
      if (tokens > left) {
        dropped.push({ path: hit.path, ...(symbol ? { symbol: symbol.qualifiedName, role: symbol.role } : {}), detail: symbol ? 'full' : 'file', reasons: [{ kind: 'over-budget', detail: { tokens, left: Math.max(0, left) } }] });
        continue;
      }
      used += tokens + (items.length === 0 ? headerTokens : 0);
      items.push({ ...(symbol ? { symbol } : {}), detail: symbol ? 'full' : 'file', startLine: r.start, endLine: r.end, text, tokens, reasons: [] });
    }
    if (items.length > 0) files.push({ path: hit.path, tier: hit.why.some((w) => DIRECT.has(w.kind)) ? 1 : 2, reasons, items, headerTokens });
  }
  return { taskId: 'model-free', task, budget: { tokens: budget, used, safetyMargin: 0 }, files, edges: [], dropped };
}
