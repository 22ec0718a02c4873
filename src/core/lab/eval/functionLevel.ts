import type { EvalMethodResult } from '../../../shared/contract/eval';
import type { ContextPackage } from '../../../shared/contract/retrieval';
import type { SearchResult } from '../../../shared/contract/search';
import type { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';
import { UNIT_KINDS, type SymbolRecord } from '../../knowledge/kb/types';
import { UNITS } from '../../knowledge/search/rankingConstants';
import type { ChangedLines } from './goldLines';

/**
 * Function-level localization (issue #27): the units are the functions and classes of a file
 * (`path::Qualified.name`) and, for changes outside any of them (imports, module constants), the file
 * itself (`path`). Gold units are the innermost such symbols that contain a line the task's commit
 * changed, at the parent; a search ranks units by the scores of the symbols its results list (each
 * symbol's file score × its share of the file's evidence, search/details.ts), or the file itself
 * when a result lists none. Unit kinds: kb/types.ts UNIT_KINDS.
 */

/** Separates a path from a qualified symbol name in a unit. */
export const UNIT_SEPARATOR = '::';

/** The gold units of a task: for each changed range of each gold file, the innermost units around it, else the file. */
export function goldUnits(kb: KnowledgeBase, changed: ChangedLines): string[] {
  const out = new Set<string>();
  for (const [path, ranges] of changed) {
    const file = kb.getFileByPath(path);
    const symbols = file ? kb.getSymbolsForFile(file.id).filter((s) => UNIT_KINDS.has(s.kind)) : [];
    for (const range of ranges) {
      const around = symbols.filter((s) => s.startLine <= range.end && s.endLine >= range.start);
      const innermost = around.filter((s) => !around.some((o) => o !== s && contains(s, o)));
      if (innermost.length === 0) out.add(path);
      for (const s of innermost) out.add(`${path}${UNIT_SEPARATOR}${s.qualifiedName}`);
    }
  }
  return [...out];
}

/** The file of a unit (`path::name` or `path`). */
function pathOfUnit(unit: string): string {
  return unit.includes(UNIT_SEPARATOR) ? unit.slice(0, unit.indexOf(UNIT_SEPARATOR)) : unit;
}

/** True when `outer` strictly encloses `inner` (a method inside its class). */
function contains(outer: SymbolRecord, inner: SymbolRecord): boolean {
  return outer.startLine <= inner.startLine && outer.endLine >= inner.endLine && (outer.startLine !== inner.startLine || outer.endLine !== inner.endLine);
}

/**
 * A search's unit ranking: every result's symbols of unit kinds, and the file itself for a result
 * that lists none, ordered by score — a symbol's own `score` (its file's score × its share of the
 * file's evidence), a file's score for the file — times `UNITS.fileDecay` to the power of the
 * file's rank, so the second file's best function can rank above the first file's fifth only when
 * it matches clearly better. Symbols without a score keep the result order (file by file).
 */
export function unitRanking(results: ReadonlyArray<Pick<SearchResult, 'path' | 'symbols'> & { score?: number }>): string[] {
  const units: Array<{ unit: string; score: number; order: number }> = [];
  for (const [rank, result] of results.entries()) {
    const symbols = result.symbols.filter((s) => UNIT_KINDS.has(s.kind));
    // A file's units weigh UNITS.fileDecay ** its rank: a lower file's unit needs a better share to pass the first file's.
    const weight = UNITS.fileDecay ** rank;
    const scoreOf = (score: number | undefined) => (score === undefined ? Number.NEGATIVE_INFINITY : score * weight);
    if (symbols.length === 0) units.push({ unit: result.path, score: scoreOf(result.score), order: units.length });
    for (const s of symbols) units.push({ unit: `${result.path}${UNIT_SEPARATOR}${s.name}`, score: scoreOf(s.score), order: units.length });
  }
  const scored = units.every((u) => Number.isFinite(u.score));
  const ordered = scored ? units.sort((a, b) => b.score - a.score || a.order - b.order) : units;
  return [...new Set(ordered.map((u) => u.unit))];
}

/**
 * Score a unit ranking: a symbol unit is found where it is ranked; a module-level gold unit (the
 * file) where any unit of its file is first ranked. recallAt: share of gold units in the top k;
 * allGoldAt (Acc@k): every gold unit in the top k; mrr of the first gold unit.
 */
export function scoreUnits(ranked: readonly string[], gold: readonly string[], ks: readonly number[], ms: number, depth: number): EvalMethodResult {
  const kept = ranked.slice(0, depth);
  const goldRanks: Record<string, number | null> = {};
  for (const unit of gold) {
    const index = unit.includes(UNIT_SEPARATOR) ? kept.indexOf(unit) : kept.findIndex((r) => pathOfUnit(r) === unit);
    goldRanks[unit] = index < 0 ? null : index + 1;
  }
  const ranks = Object.values(goldRanks);
  const recallAt: Record<string, number> = {};
  const allGoldAt: Record<string, number> = {};
  for (const k of ks) {
    const found = ranks.filter((r) => r !== null && r <= k).length;
    recallAt[k] = gold.length === 0 ? 0 : found / gold.length;
    allGoldAt[k] = gold.length > 0 && found === gold.length ? 1 : 0;
  }
  const first = Math.min(...ranks.map((r) => r ?? Infinity));
  return { recallAt, allGoldAt, mrr: Number.isFinite(first) ? 1 / first : 0, ranked: kept, goldRanks, ms: Math.round(ms) };
}

/**
 * The share of gold units a context package holds (the precision stage's function-level figure):
 * a symbol unit is held when the package has that symbol, an enclosing one in full source, or its
 * whole file; a module-level unit (the file) when the package has anything of the file.
 */
export function packageUnitRecall(pkg: Pick<ContextPackage, 'files'>, gold: readonly string[]): number {
  if (gold.length === 0) return 0;
  const held = gold.filter((unit) => {
    const at = unit.indexOf(UNIT_SEPARATOR);
    const path = at < 0 ? unit : unit.slice(0, at);
    const file = pkg.files.find((f) => f.path === path);
    if (!file) return false;
    if (at < 0) return true;
    const name = unit.slice(at + UNIT_SEPARATOR.length);
    return file.items.some((item) => item.detail === 'file' || (item.symbol && (item.symbol.qualifiedName === name || (item.detail === 'full' && name.startsWith(`${item.symbol.qualifiedName}.`)))));
  });
  return held.length / gold.length;
}
