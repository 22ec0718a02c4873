import type { Reason } from '../../../../shared/contract/reasons';
import type { KnowledgeBase } from '../../../knowledge/kb/knowledgeBase';
import type { LlmClient } from '../../../platform/llm/client';
import { searchRepository } from '../../../knowledge/search/search';
import { fileItem, judgeAll, judgmentFacts, judgmentReason } from '../judge';
import { judgeSetupOf, type ContextFile, type RetrievalStage, type StageContext } from '../stage';
import { SCOPE_DEFAULTS } from '../../../../shared/defaults';
import type { TaskRecord } from '../taskAnalysis';

export { SCOPE_DEFAULTS } from '../../../../shared/defaults';

/** Settings of the scope stage. */
export interface ScopeOptions {
  /** Top hits of the model-free search taken as seeds (default {@link SCOPE_DEFAULTS}). */
  searchSeeds?: number;
  /** Co-change neighbours need at least this many shared commits (default 2). */
  minCoChange?: number;
  /** At most this many candidates, seeds included (default {@link SCOPE_DEFAULTS}); the rest are recorded as over the cap. */
  maxCandidates?: number;
  /** Tier 4 metadata matches taken at most (default 10); only when enrichment was promoted into the index. */
  maxMetadataMatches?: number;
}

/** How deep the search's ranking orders tier 2 and 3 (beyond the seeds it gives tier 1). */
const NEIGHBOUR_RANK_DEPTH = 100;

/** Tier 0 and tier 1 candidates skip judgment: the caller or the task named them. */
export const isSeedTier = (tier: number): boolean => tier <= 1;

/** Whether the index holds promoted enrichment metadata (tier 4 runs only then). */
export function hasFileMetadata(kb: KnowledgeBase): boolean {
  return kb.searchFilesByMetadata().length > 0;
}

/** One scope candidate: the file, its tier and the relation that brought it. */
export interface ScopeCandidate {
  fileId: number;
  path: string;
  tier: number;
  relation: Reason;
  /** Tie-break within a tier (lower first). */
  order: number;
}

/** The question every non-seed candidate is asked. */
export const SCOPE_QUESTION = 'Is this file needed to understand or change the code for the task?';

/**
 * Tiered expansion outward from seeds — tier 0: files given with the task (a plan's files, a
 * refinement's evidence); tier 1: files the task names (or that define symbols it names, or that
 * its stack traces pass through) and the top hits of our model-free search; tier 2: import
 * dependencies of seeds both ways; tier 3: co-change neighbours of seeds above a minimum count
 * (in tiers 2 and 3, the neighbours the search ranks below the seeds come first, by that rank);
 * tier 4: files whose promoted enrichment metadata shares concepts, domain or module with the
 * task (skipped when the index has none) — ordered within tiers and capped. Tiers 0 and 1 skip
 * judgment; every other candidate gets one binary judgment, and is kept on a yes (ordered by
 * P(yes) within its tier when known).
 */
export async function scopeCandidates(kb: KnowledgeBase, task: TaskRecord, options: ScopeOptions = {}, signal?: AbortSignal): Promise<ScopeCandidate[]> {
  const out = new Map<number, ScopeCandidate>();
  const add = (fileId: number, path: string, tier: number, relation: Reason, order: number) => {
    if (!out.has(fileId)) out.set(fileId, { fileId, path, tier, relation, order });
  };
  const x = task.extraction;
  let n = 0;
  for (const g of task.givenFiles ?? []) {
    const file = kb.getFileByPath(g.path);
    if (file && !file.skipReason) add(file.id, file.path, 0, g.reason, n++);
  }
  for (const f of x.files) {
    const file = f.path ? kb.getFileByPath(f.path) : null;
    if (file && !file.skipReason) add(file.id, file.path, 1, { kind: 'named-in-task', detail: { text: f.text } }, n++);
  }
  for (const s of x.symbols) {
    for (const path of s.definedIn) {
      const file = kb.getFileByPath(path);
      if (file) add(file.id, path, 1, { kind: 'named-in-task', detail: { text: s.text } }, n++);
    }
  }
  for (const e of x.errors) {
    for (const frame of e.frames) {
      const file = frame.path ? kb.getFileByPath(frame.path) : null;
      if (file && !file.skipReason) add(file.id, file.path, 1, { kind: 'named-in-task', detail: { text: `${frame.file}:${frame.line}` } }, n++);
    }
  }
  const seedCount = options.searchSeeds ?? SCOPE_DEFAULTS.searchSeeds;
  // The search ranks deeper than the seeds it gives: a neighbour it also ranks comes first in its tier.
  const hits = await searchRepository(kb, task.text, { limit: Math.max(seedCount, NEIGHBOUR_RANK_DEPTH), mode: 'keyword', signal });
  hits.slice(0, seedCount).forEach((hit, i) => {
    const file = kb.getFileByPath(hit.path);
    if (file) add(file.id, hit.path, 1, { kind: 'seed', detail: { rank: i + 1 } }, n++);
  });
  const searchRank = new Map(hits.map((h, i) => [h.path, i]));
  const byRank = (a: string, b: string) => (searchRank.get(a) ?? Infinity) - (searchRank.get(b) ?? Infinity);
  const seeds = [...out.values()];
  // Tier 2: the search's rank first (a neighbour it ranks), then how many seeds a file is linked to, then the first seed's order.
  const deps = new Map<number, { path: string; relation: Reason; links: number; first: number }>();
  for (const [i, seed] of seeds.entries()) {
    for (const edge of kb.getDependencies(seed.fileId, 'both')) {
      const relation: Reason = edge.direction === 'outgoing' ? { kind: 'imported-by', detail: { path: seed.path } } : { kind: 'imports', detail: { path: seed.path } };
      const known = deps.get(edge.fileId);
      if (known) known.links++;
      else deps.set(edge.fileId, { path: edge.path, relation, links: 1, first: i });
    }
  }
  [...deps.entries()].sort(([, a], [, b]) => byRank(a.path, b.path) || b.links - a.links || a.first - b.first || a.path.localeCompare(b.path)).forEach(([id, d], i) => add(id, d.path, 2, d.relation, i));
  // Tier 3: the search's rank first, then the co-change count.
  const co: Array<{ fileId: number; path: string; seed: string; count: number }> = [];
  for (const seed of seeds) for (const c of kb.getCoChangeNeighbors(seed.fileId, options.minCoChange ?? SCOPE_DEFAULTS.minCoChange)) co.push({ ...c, seed: seed.path });
  co.sort((a, b) => byRank(a.path, b.path) || b.count - a.count || a.path.localeCompare(b.path)).forEach((c, i) => add(c.fileId, c.path, 3, { kind: 'co-change', detail: { path: c.seed, commits: c.count } }, i));
  // Tier 4: rank by how many of the task's terms the metadata shares.
  metadataMatches(kb, task, options.maxMetadataMatches ?? 10).forEach((m, i) => add(m.fileId, m.path, 4, { kind: 'metadata-match', detail: { matched: m.matched } }, i));
  return [...out.values()].sort((a, b) => a.tier - b.tier || a.order - b.order);
}

/**
 * Files whose enrichment metadata (concepts, domain, module) shares terms with the task: the
 * enrichment's concepts and the extraction's keywords, compared case-insensitively. Most matches
 * first. Empty when the index has no metadata.
 */
export function metadataMatches(kb: KnowledgeBase, task: TaskRecord, limit: number): Array<{ fileId: number; path: string; matched: string[] }> {
  const terms = new Set([...(task.enrichment.status === 'ok' ? task.enrichment.concepts : []), ...task.extraction.keywords].map((t) => t.toLowerCase().trim()).filter((t) => t.length > 2));
  if (terms.size === 0) return [];
  const out: Array<{ fileId: number; path: string; matched: string[] }> = [];
  for (const m of kb.searchFilesByMetadata()) {
    const own = [...m.concepts, m.domain ?? '', m.module ?? ''].map((t) => t.toLowerCase().trim()).filter(Boolean);
    const matched = [...new Set(own.filter((t) => terms.has(t)))];
    if (matched.length) out.push({ fileId: m.fileId, path: m.path, matched });
  }
  return out.sort((a, b) => b.matched.length - a.matched.length || a.path.localeCompare(b.path)).slice(0, limit);
}

/** What the judge sees of a file: path, language, its symbols and module docstring. */
export function describeFile(kb: KnowledgeBase, c: Pick<ScopeCandidate, 'fileId' | 'path'>): string {
  const file = kb.getFile(c.fileId);
  const symbols = kb.getSymbolsForFile(c.fileId).filter((s) => s.parentId === null || s.kind === 'method').slice(0, 15).map((s) => s.signature || s.qualifiedName);
  const doc = kb.getDocstringsForFile(c.fileId).moduleDoc?.split('\n')[0];
  return [`path: ${c.path}`, file ? `language: ${file.language}` : '', doc ? `about: ${doc}` : '', symbols.length ? `defines:\n${symbols.map((s) => `  ${s}`).join('\n')}` : ''].filter(Boolean).join('\n');
}

/** The scope stage (see {@link scopeCandidates}). */
export class ScopeStage implements RetrievalStage {
  readonly name = 'scope';
  constructor(private readonly options: ScopeOptions = {}) {}

  /** Expand, judge the non-seeds, and keep the seeds and the yeses. */
  async run(context: StageContext, kb: KnowledgeBase, task: TaskRecord, llm: LlmClient): Promise<StageContext> {
    const all = await scopeCandidates(kb, task, this.options, context.signal);
    const cap = Math.max(this.options.maxCandidates ?? SCOPE_DEFAULTS.maxCandidates, all.filter((c) => isSeedTier(c.tier)).length);
    const candidates = all.slice(0, cap);
    const decisions: StageContext['decisions'] = all.slice(cap).map((c) => ({ subjectKind: 'file', subject: c.path, tier: String(c.tier), decision: 'over-cap', reasons: [c.relation] }));
    const seeds = candidates.filter((c) => isSeedTier(c.tier));
    const judged = candidates.filter((c) => !isSeedTier(c.tier));
    const verdicts = await judgeAll(judgeSetupOf(context, llm, task, 'scope', SCOPE_QUESTION), judged.map((c) => describeFile(kb, c)), judged.map((c) => fileItem(c.path)));
    const files: ContextFile[] = seeds.map((c) => ({ fileId: c.fileId, path: c.path, tier: c.tier, reasons: [c.relation] }));
    for (const c of seeds) decisions.push({ subjectKind: 'file', subject: c.path, tier: String(c.tier), decision: 'included', reasons: [c.relation] });
    const kept: Array<ContextFile & { order: number }> = [];
    judged.forEach((c, i) => {
      const j = verdicts[i]!;
      const reasons = [c.relation, judgmentReason(j)];
      decisions.push({ subjectKind: 'file', subject: c.path, tier: String(c.tier), decision: j.verdict === 'yes' ? 'included' : 'excluded', reasons, judgment: judgmentFacts(j), ...(j.callId !== undefined ? { modelCallId: j.callId } : {}) });
      if (j.verdict === 'yes') kept.push({ fileId: c.fileId, path: c.path, tier: c.tier, reasons, ...(j.pYes !== undefined ? { pYes: j.pYes } : {}), order: i });
    });
    // Within a tier, a more confident yes first; without P(yes), the tier's own order.
    kept.sort((a, b) => a.tier - b.tier || (b.pYes ?? 0) - (a.pYes ?? 0) || a.order - b.order);
    return { ...context, files: [...context.files, ...files, ...kept.map(({ order: _o, ...f }) => f)], decisions };
  }
}
