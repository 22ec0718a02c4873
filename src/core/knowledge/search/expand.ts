import type { Reason } from '../../../shared/contract/reasons';
import type { GraphSymbol, SymbolEdge, SymbolGraph, SymbolReference } from '../kb/symbolGraph';
import type { SearchIndex } from '../kb/searchIndex';
import { strongHits, type DefinitionHit } from './graph';
import type { FileHit } from './keyword';
import { EXPAND, ISSUE_SHAPED } from './rankingConstants';

/** How a candidate was reached from a seed symbol. */
type Relation = 'called-by' | 'base-class' | 'subclass' | 'override';

/** A symbol the walk starts from: named by the query, or about a top hit's best chunk. */
interface Seed {
  symbol: GraphSymbol;
  /** The seed's worth: its file's score × the seed weight of its kind. */
  value: number;
}

/** One step of the walk: `symbol` reached from `seed` by `relation`, `depth` edges away. */
interface Step {
  seed: Seed;
  symbolId: number;
  relation: Relation;
  depth: number;
}

/**
 * Expansion to the code a query does not name (issue #27, item 3). The root cause of a bug is often
 * where the text never points: it names `lambdify` and the fix is in the printer lambdify calls; it
 * names a subclass and the fix is in its base class. From the symbols the query names (its
 * definitions) and the symbols of the best chunks of the top files, the walk follows the index's
 * resolved symbol references: callees (`called-by`), base classes up the hierarchy to
 * `EXPAND.baseDepth` (`base-class`, the MRO), direct subclasses (`subclass`) and the methods of the
 * same name in those classes (`override`). A file reached this way receives
 *
 *   seed value × EXPAND.decay^depth × EXPAND.<relation> / (1 + ln(files that relation reached from that seed))
 *
 * (the best value per relation, as the import neighbours do; the fan-out damping keeps a hub that
 * calls everything from lifting every file), and the reason `symbol-graph` saying why. Co-change is
 * walked by the import/co-change neighbours (graph.ts). Every read is a bounded statement over id
 * lists (kb/symbolGraph.ts): no query per candidate. The constants and their measurement are in
 * rankingConstants.ts (EXPAND).
 */
export function applyExpansion(index: SearchIndex, files: Map<number, FileHit>, definitions: Map<number, DefinitionHit[]>, issueShaped = false): void {
  const merge = issueShaped ? { share: ISSUE_SHAPED.expandShare, raiseOnly: EXPAND.raiseOnly && !ISSUE_SHAPED.expandAdd } : { share: EXPAND.share, raiseOnly: Boolean(EXPAND.raiseOnly) };
  if (merge.share <= 0) return;
  const graph = index.symbolGraph;
  const seeds = seedsOf(index, files, definitions);
  if (seeds.size === 0) return;

  // Scope of each seed: the seed and its members (a class's methods make its calls).
  const scope = new Map<number, Seed>();
  for (const seed of seeds.values()) scope.set(seed.symbol.id, seed);
  const classSeeds = [...seeds.values()].filter((s) => CLASS_KINDS.has(s.symbol.kind));
  for (const member of graph.members(classSeeds.map((s) => s.symbol.id), EXPAND.maxRows)) {
    if (!scope.has(member.id)) scope.set(member.id, seeds.get(member.parentId!)!);
  }

  const steps: Step[] = [];
  for (const edge of targetsOf(graph, graph.references([...scope.keys()], 'call', EXPAND.maxRows), false)) {
    steps.push({ seed: scope.get(edge.fromId)!, symbolId: edge.toId, relation: 'called-by', depth: 1 });
  }
  // The class hierarchy: bases to baseDepth, subclasses one level down, for class seeds and the
  // classes of method seeds (whose same-named methods there are overrides).
  const methodSeeds = [...seeds.values()].filter((s) => s.symbol.parentId !== null && !CLASS_KINDS.has(s.symbol.kind));
  const owners = new Map<number, Seed[]>();
  for (const s of classSeeds) owners.set(s.symbol.id, [s]);
  for (const s of methodSeeds) owners.set(s.symbol.parentId!, [...(owners.get(s.symbol.parentId!) ?? []), s]);
  const related = new Map<number, Array<{ seed: Seed; depth: number; relation: Relation }>>();
  let frontier = new Map<number, Seed[]>(owners);
  // (seed, class) pairs already reached: a cycle or a diamond in the hierarchy is walked once.
  const reached = new Set([...owners].flatMap(([id, list]) => list.map((seed) => `${seed.symbol.id}:${id}`)));
  for (let depth = 1; depth <= EXPAND.baseDepth && frontier.size > 0; depth++) {
    const next = new Map<number, Seed[]>();
    for (const edge of targetsOf(graph, graph.references([...frontier.keys()], 'inherit', EXPAND.maxRows), true)) {
      for (const seed of frontier.get(edge.fromId) ?? []) {
        const key = `${seed.symbol.id}:${edge.toId}`;
        if (reached.has(key)) continue;
        reached.add(key);
        (next.get(edge.toId) ?? next.set(edge.toId, []).get(edge.toId)!).push(seed);
        (related.get(edge.toId) ?? related.set(edge.toId, []).get(edge.toId)!).push({ seed, depth, relation: 'base-class' });
      }
    }
    frontier = next;
  }
  for (const edge of graph.subclasses([...owners.keys()], EXPAND.maxRows)) {
    for (const seed of owners.get(edge.toId) ?? []) (related.get(edge.fromId) ?? related.set(edge.fromId, []).get(edge.fromId)!).push({ seed, depth: 1, relation: 'subclass' });
  }
  for (const [classId, reached] of related) {
    for (const r of reached) {
      // A class seed reaches the related class itself; a method seed reaches the same-named method.
      if (CLASS_KINDS.has(r.seed.symbol.kind)) steps.push({ seed: r.seed, symbolId: classId, relation: r.relation, depth: r.depth });
    }
  }
  const methodNames = new Set(methodSeeds.map((s) => s.symbol.name));
  if (methodNames.size > 0 && related.size > 0) {
    for (const member of graph.members([...related.keys()], EXPAND.maxRows)) {
      if (!methodNames.has(member.name)) continue;
      for (const r of related.get(member.parentId!) ?? []) {
        if (r.seed.symbol.name === member.name && !CLASS_KINDS.has(r.seed.symbol.kind)) steps.push({ seed: r.seed, symbolId: member.id, relation: 'override', depth: r.depth });
      }
    }
  }
  offer(index, files, steps, graph.symbols([...new Set(steps.map((s) => s.symbolId))]), merge);
}

/**
 * The targets of references: a resolved one's target; an unresolved one's by its last name
 * (`self.render` → `render`) among the symbols of a fitting kind (classes for a base, functions and
 * methods for a call), when at most `EXPAND.maxNameFiles` files define that name — a re-exported
 * import leaves the reference unresolved, a common name (`get`) says nothing.
 */
function targetsOf(graph: SymbolGraph, references: readonly SymbolReference[], classes: boolean): SymbolEdge[] {
  const edges: SymbolEdge[] = references.flatMap((r) => (r.toId === null ? [] : [{ fromId: r.fromId, toId: r.toId }]));
  const lastName = (name: string) => name.slice(name.lastIndexOf('.') + 1);
  const unresolved = references.filter((r) => r.toId === null);
  const names = [...new Set(unresolved.map((r) => lastName(r.name)))].filter((n) => n.length > 1);
  if (names.length === 0) return edges;
  const fits = (s: GraphSymbol) => (classes ? CLASS_KINDS.has(s.kind) : s.kind === 'function' || s.kind === 'method');
  const byName = new Map<string, GraphSymbol[]>();
  for (const s of graph.symbolsNamed(names.slice(0, EXPAND.maxSeeds * 2), EXPAND.maxRows).filter(fits)) (byName.get(s.name) ?? byName.set(s.name, []).get(s.name)!).push(s);
  for (const r of unresolved) {
    const candidates = byName.get(lastName(r.name)) ?? [];
    if (new Set(candidates.map((c) => c.fileId)).size > EXPAND.maxNameFiles) continue;
    for (const c of candidates) edges.push({ fromId: r.fromId, toId: c.id });
  }
  return edges;
}

/** Kinds whose members and hierarchy are walked. */
const CLASS_KINDS = new Set(['class', 'struct', 'interface', 'trait']);

/**
 * The seeds: every definition the query names (at its file's score × `EXPAND.namedSeed`) and the
 * symbols starting in the best chunk of each of the first `EXPAND.topFiles` strong hits (× `EXPAND.topFileSeed`).
 */
function seedsOf(index: SearchIndex, files: Map<number, FileHit>, definitions: Map<number, DefinitionHit[]>): Map<number, Seed> {
  const seeds = new Map<number, Seed>();
  const add = (symbol: GraphSymbol, value: number) => {
    if (value > (seeds.get(symbol.id)?.value ?? 0)) seeds.set(symbol.id, { symbol, value });
  };
  const named = [...definitions.values()].flat().slice(0, EXPAND.maxSeeds);
  if (EXPAND.namedSeed > 0) {
    const rows = new Map(index.symbolGraph.symbols(named.map((d) => d.symbolId)).map((s) => [s.id, s]));
    for (const d of named) {
      const symbol = rows.get(d.symbolId);
      if (symbol) add(symbol, (files.get(d.fileId)?.score ?? 0) * EXPAND.namedSeed);
    }
  }
  if (EXPAND.topFileSeed > 0 && EXPAND.topFiles > 0) {
    const top = strongHits(files).slice(0, EXPAND.topFiles);
    const scoreOf = new Map(top.map((t) => [t.hit.fileId, t.score]));
    const chunkIds = top.flatMap((t) => (t.hit.chunks[0] ? [t.hit.chunks[0].chunkId] : []));
    for (const symbol of index.symbolGraph.symbolsInChunks(chunkIds, EXPAND.maxSeeds)) add(symbol, (scoreOf.get(symbol.fileId) ?? 0) * EXPAND.topFileSeed);
  }
  return seeds;
}

/** Turn the walk's steps into file boosts: the best per (file, relation), damped by each seed's fan-out. */
function offer(index: SearchIndex, files: Map<number, FileHit>, steps: readonly Step[], targets: readonly GraphSymbol[], merge: { share: number; raiseOnly: boolean }): void {
  const symbolOf = new Map(targets.map((t) => [t.id, t]));
  const reach = new Map<string, Set<number>>();
  const live = steps.filter((s) => {
    const target = symbolOf.get(s.symbolId);
    return target !== undefined && target.fileId !== s.seed.symbol.fileId;
  });
  for (const s of live) {
    const key = `${s.seed.symbol.id}:${s.relation}`;
    (reach.get(key) ?? reach.set(key, new Set()).get(key)!).add(symbolOf.get(s.symbolId)!.fileId);
  }
  const best = new Map<number, Map<Relation, { value: number; reason: Reason }>>();
  for (const s of live) {
    const target = symbolOf.get(s.symbolId)!;
    const fanOut = reach.get(`${s.seed.symbol.id}:${s.relation}`)!.size;
    const value = (s.seed.value * merge.share * EXPAND.decay ** s.depth * EXPAND[relationWeight[s.relation]]) / (1 + Math.log(fanOut));
    const perRelation = best.get(target.fileId) ?? best.set(target.fileId, new Map()).get(target.fileId)!;
    if (value <= (perRelation.get(s.relation)?.value ?? 0)) continue;
    const path = index.pathOf(s.seed.symbol.fileId) ?? '?';
    perRelation.set(s.relation, { value, reason: { kind: 'symbol-graph', detail: { relation: s.relation, symbol: target.qualifiedName, from: s.seed.symbol.qualifiedName, path } } });
  }
  for (const [fileId, perRelation] of best) {
    const file = files.get(fileId) ?? { fileId, score: 0, chunks: [], why: [] };
    const total = [...perRelation.values()].reduce((sum, r) => sum + r.value, 0);
    // Raise-only: a file gets at least what the walk offers, a direct hit is not lifted above
    // another by it (additive, the hits' order changed at R@1: starlette .577 → .527).
    if (merge.raiseOnly && total <= file.score) continue;
    file.score = merge.raiseOnly ? total : file.score + total;
    files.set(fileId, file);
    for (const { reason } of perRelation.values()) file.why.push(reason);
  }
}

/** The EXPAND weight of each relation. */
const relationWeight = { 'called-by': 'callee', 'base-class': 'base', subclass: 'subclass', override: 'override' } as const satisfies Record<Relation, keyof typeof EXPAND>;
