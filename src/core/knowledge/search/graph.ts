import type { Reason } from '../../../shared/contract/reasons';
import type { SearchIndex } from '../kb/searchIndex';
import type { FileHit } from './keyword';
import { splitIdentifier, type ParsedQuery } from './query';
import { GRAPH } from './rankingConstants';

/** A definition found for a query identifier. */
export interface DefinitionHit {
  fileId: number;
  symbolId: number;
  name: string;
  /** `Class.method` for a member, the name for a top-level symbol. */
  qualifiedName: string;
  kind: string;
  startLine: number;
  endLine: number;
  /** How the query named it: `GRAPH.definitionIdentifier` as an identifier, `GRAPH.definitionWord` as a plain word. */
  weight?: number;
}

/** Case variants of a name, so the case-sensitive `symbols(name)` index can be used. */
function nameVariants(query: ParsedQuery): Map<string, number> {
  const variants = new Map<string, number>();
  const add = (name: string, weight: number) => variants.set(name, Math.max(variants.get(name) ?? 0, weight));
  for (const id of query.identifiers) {
    const weight = /[a-z][A-Z]|_|[A-Za-z][0-9]/.test(id) || query.identifiers.length === 1 ? GRAPH.definitionIdentifier : GRAPH.definitionWord;
    add(id, weight);
    add(id.toLowerCase(), weight);
    add(id[0]!.toUpperCase() + id.slice(1), weight);
    // The other naming convention of the same words: getUserById ↔ get_user_by_id.
    const parts = splitIdentifier(id);
    if (parts.length > 1) {
      add(parts.join('_'), weight);
      const camel = parts.map((p, i) => (i === 0 ? p : p[0]!.toUpperCase() + p.slice(1))).join('');
      add(camel, weight);
      add(camel[0]!.toUpperCase() + camel.slice(1), weight);
    }
  }
  for (const joined of query.symbolNames) {
    if (!joined.includes('_') && !query.identifiers.some((i) => i.toLowerCase() === joined)) {
      add(joined, GRAPH.definitionIdentifier);
    }
    if (joined.includes('_')) {
      add(joined, GRAPH.definitionIdentifier);
      const camel = joined.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
      add(camel, GRAPH.definitionIdentifier);
      add(camel[0]!.toUpperCase() + camel.slice(1), GRAPH.definitionIdentifier);
    }
  }
  return variants;
}

/** Symbols whose name is one the query names, with the weight of that name. */
export function findDefinitions(index: SearchIndex, query: ParsedQuery): Array<DefinitionHit & { weight: number }> {
  const variants = nameVariants(query);
  if (variants.size === 0) return [];
  const rows: DefinitionHit[] = index.definitionsNamed([...variants.keys()]);
  return rows.map((r) => ({ ...r, weight: variants.get(r.name) ?? 0 }));
}

function hitFor(files: Map<number, FileHit>, fileId: number): FileHit {
  let file = files.get(fileId);
  if (!file) {
    file = { fileId, score: 0, chunks: [], why: [] };
    files.set(fileId, file);
  }
  return file;
}

/**
 * Definitions over mentions: a file that defines a symbol the query names gains a bonus, damped
 * when many files define the same name (like IDF). Returns the definitions for the result details.
 */
export function applyDefinitions(index: SearchIndex, query: ParsedQuery, files: Map<number, FileHit>): Map<number, DefinitionHit[]> {
  const defs = withoutShadowDeclarations(index, findDefinitions(index, query));
  const filesPerName = new Map<string, Set<number>>();
  for (const d of defs) (filesPerName.get(d.name) ?? filesPerName.set(d.name, new Set()).get(d.name)!).add(d.fileId);
  const byFile = new Map<number, Array<DefinitionHit & { weight: number }>>();
  for (const d of defs) (byFile.get(d.fileId) ?? byFile.set(d.fileId, []).get(d.fileId)!).push(d);
  for (const [fileId, fileDefs] of byFile) {
    const file = hitFor(files, fileId);
    const seen = new Set<string>();
    let bonus = 0;
    for (const d of fileDefs.sort((a, b) => b.weight - a.weight)) {
      if (seen.has(d.name.toLowerCase())) continue;
      seen.add(d.name.toLowerCase());
      bonus += d.weight / (1 + Math.log(filesPerName.get(d.name)!.size));
      file.why.push({ kind: 'definition', detail: { symbol: d.name } });
    }
    file.score += bonus;
  }
  return byFile;
}

/**
 * A type declaration (`.d.ts`) does not count as defining a name that code also defines: the
 * declaration repeats the code's names, and took the definition bonus from it (issue #27). A name
 * only a declaration defines (eslint's lib/types/rules.d.ts) keeps it.
 */
function withoutShadowDeclarations<T extends DefinitionHit>(index: SearchIndex, defs: T[]): T[] {
  const isDeclaration = (fileId: number) => DECLARATION_FILE.test(index.pathOf(fileId) ?? '');
  const inCode = new Set(defs.filter((d) => !isDeclaration(d.fileId)).map((d) => d.name));
  return defs.filter((d) => !inCode.has(d.name) || !isDeclaration(d.fileId));
}

const DECLARATION_FILE = /\.d\.[cm]?ts$/i;

/** A score multiplier per file (1 = neutral), e.g. the demotion of tests and documentation. */
export type FilePrior = (fileId: number) => number;

/** The strongest files of a ranking: the top few within a share of the best score. */
export function strongHits(files: Map<number, FileHit>): Array<{ hit: FileHit; score: number }> {
  const sorted = [...files.values()].map((hit) => ({ hit, score: hit.score })).sort((a, b) => b.score - a.score);
  const best = sorted[0]?.score ?? 0;
  return sorted.slice(0, GRAPH.strongHits).filter((f) => best > 0 && f.score >= best * GRAPH.strongShare);
}

/**
 * Import and co-change neighbours of the strong hits receive parent score × decay × edge weight
 * (the best parent per kind, so a hub is not inflated by many parents). Files not yet in the
 * ranking enter it this way.
 */
export function applyNeighbours(index: SearchIndex, files: Map<number, FileHit>, pathOf: (fileId: number) => string | undefined): void {
  const strong = strongHits(files);
  if (strong.length === 0) return;
  const scoreOf = new Map(strong.map((s) => [s.hit.fileId, s.score]));
  const boosts = new Map<number, Map<string, { value: number; reason: Reason }>>();
  const offer: Offer = (fileId, value, reason) => {
    const perKind = boosts.get(fileId) ?? boosts.set(fileId, new Map()).get(fileId)!;
    if ((perKind.get(reason.kind)?.value ?? 0) < value) perKind.set(reason.kind, { value, reason });
  };
  const strongIds = new Set(scoreOf.keys());
  const deps = index.dependencyEdgesOf([...strongIds]);
  for (const { a, b } of deps) {
    if (a === b) continue;
    const [pathA, pathB] = [pathOf(a), pathOf(b)];
    if (strongIds.has(a) && pathA) offer(b, scoreOf.get(a)! * GRAPH.decay * GRAPH.importWeight, { kind: 'imported-by', detail: { path: pathA } });
    if (strongIds.has(b) && pathB) offer(a, scoreOf.get(b)! * GRAPH.decay * GRAPH.importWeight, { kind: 'imports', detail: { path: pathB } });
  }
  applyCoChanges(index, strong, offer);
  for (const [fileId, perKind] of boosts) {
    const file = hitFor(files, fileId);
    for (const { value, reason } of perKind.values()) {
      file.score += value;
      file.why.push(reason);
    }
  }
}

/** Offer a neighbour boost; per file, the best value of each reason kind is kept. */
type Offer = (fileId: number, value: number, reason: Reason) => void;

function applyCoChanges(index: SearchIndex, strong: Array<{ hit: FileHit; score: number }>, offer: Offer): void {
  const strongPaths = strong.map((f) => ({ score: f.score, path: index.pathOf(f.hit.fileId) })).filter((s) => s.path);
  for (const { score, path } of strongPaths) {
    for (const row of index.coChangesOf(path!, GRAPH.minCoChange)) {
      const other = row.a === path ? row.b : row.a;
      const otherId = index.fileIdOf(other);
      if (otherId === undefined) continue;
      const weight = GRAPH.coChangeWeight * Math.min(1, row.count / GRAPH.coChangeSaturation);
      offer(otherId, score * GRAPH.decay * weight, { kind: 'co-change', detail: { path: path!, commits: row.count } });
    }
  }
}

/** The test-file prior: test files are demoted slightly unless the query is about tests. */
export function testPrior(index: SearchIndex, query: ParsedQuery): FilePrior {
  if (query.mentionsTests) return () => 1;
  const testFiles = index.searchStats().testFiles;
  return (fileId) => (testFiles.has(fileId) ? GRAPH.testDemotion : 1);
}

/** Multiply every file's score by its prior. */
export function applyPrior(files: Map<number, FileHit>, prior: FilePrior): void {
  for (const file of files.values()) file.score *= prior(file.fileId);
}
