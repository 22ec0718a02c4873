import type { ChatCitation, ChatSource } from '../../../../shared/contract/chat';

/** How many of the best search hits show besides the cited sources before "+N more". */
export const TOP_SEEDS = 5;

/** Whether a citation of the answer points into a source (same file, overlapping lines). */
function cites(citation: ChatCitation, source: ChatSource): boolean {
  return citation.status !== 'unverified' && citation.path === source.path && citation.startLine <= source.endLine && citation.endLine >= source.startLine;
}

/**
 * The sources a turn shows at first and the rest behind "+N more": the ones the answer cites, then
 * the best search hits (seeds by score) up to `topSeeds`; each list keeps the engine's order.
 */
export function splitSources(sources: readonly ChatSource[], citations: readonly ChatCitation[] | null, topSeeds = TOP_SEEDS): { shown: ChatSource[]; more: ChatSource[]; cited: Set<ChatSource> } {
  const cited = new Set(sources.filter((s) => (citations ?? []).some((c) => cites(c, s))));
  const best = new Set(
    sources
      .filter((s) => s.role === 'seed' && !cited.has(s))
      .sort((a, b) => b.score - a.score)
      .slice(0, topSeeds),
  );
  // Too few to hide: a "+1 more" saves nothing.
  if (sources.length <= cited.size + best.size + 1) return { shown: [...sources], more: [], cited };
  return { shown: sources.filter((s) => cited.has(s) || best.has(s)), more: sources.filter((s) => !cited.has(s) && !best.has(s)), cited };
}
