import type { Db } from '../db/open';

/** A symbol this run wrote, with its database id. `parentId` is the enclosing symbol's id. */
export interface WrittenSymbol {
  id: number;
  name: string;
  kind: string;
  parentId: number | null;
}

const CLASS_LIKE = new Set(['class', 'struct', 'interface']);

/** Whether a symbol kind can hold members reached by `self.x` / `this.x`. */
export const isClassLike = (kind: string): boolean => CLASS_LIKE.has(kind);

/**
 * Name lookups over the symbols of an index for reference resolution: top-level names per file,
 * member names per symbol and resolved base classes per class. Files written by this run are
 * registered from memory (no reads); the other files are read from the database on first need and
 * cached. The first definition of a name wins (lowest id), as in the database order.
 */
export class SymbolTable {
  private readonly topLevel = new Map<number, Map<string, number>>();
  private readonly children = new Map<number, Map<string, number>>();
  private readonly bases = new Map<number, number[]>();
  /** Symbols registered from memory: a missing member or base entry means "none", not "unread". */
  private readonly registered = new Set<number>();
  private readonly stmt;

  constructor(db: Db) {
    this.stmt = {
      topLevel: db.prepare('select id, name from symbols where file_id = ? and parent_id is null order by id'),
      members: db.prepare('select id, name from symbols where parent_id = ? order by id'),
      bases: db.prepare("select target_symbol_id from symbol_references where from_symbol_id = ? and kind = 'inherit' and target_symbol_id is not null").pluck(),
    };
  }

  /** Register the symbols of a file written in this run (in extraction order, ids ascending). */
  register(fileId: number, symbols: readonly WrittenSymbol[]): void {
    const top = new Map<string, number>();
    for (const s of symbols) {
      this.registered.add(s.id);
      if (s.parentId === null) {
        if (!top.has(s.name)) top.set(s.name, s.id);
        continue;
      }
      let members = this.children.get(s.parentId);
      if (!members) this.children.set(s.parentId, (members = new Map()));
      if (!members.has(s.name)) members.set(s.name, s.id);
    }
    this.topLevel.set(fileId, top);
  }

  /** Top-level symbols of a file by name. */
  topLevelOf(fileId: number): Map<string, number> {
    let map = this.topLevel.get(fileId);
    if (!map) {
      map = firstById(this.stmt.topLevel.all(fileId) as Array<{ id: number; name: string }>);
      this.topLevel.set(fileId, map);
    }
    return map;
  }

  /** Direct members of a symbol by name. */
  membersOf(symbolId: number): Map<string, number> {
    let map = this.children.get(symbolId);
    if (!map) {
      map = this.registered.has(symbolId) ? new Map() : firstById(this.stmt.members.all(symbolId) as Array<{ id: number; name: string }>);
      this.children.set(symbolId, map);
    }
    return map;
  }

  /** Resolved base classes of a class (registered classes: what `setBases` recorded; others: their stored `inherit` targets). */
  basesOf(classId: number): number[] {
    let bases = this.bases.get(classId);
    if (!bases) {
      bases = this.registered.has(classId) ? [] : (this.stmt.bases.all(classId) as number[]);
      this.bases.set(classId, bases);
    }
    return bases;
  }

  /** Record the resolved bases of a class of this run. */
  setBases(classId: number, bases: number[]): void {
    this.bases.set(classId, bases);
  }

  /** Forget the cached bases of a stored class (its `inherit` references were re-targeted). */
  dropBases(classId: number): void {
    if (!this.registered.has(classId)) this.bases.delete(classId);
  }

  /** A member of a class, else of its base classes, `depth` levels up. */
  memberOfClass(classId: number, member: string, depth: number): number | null {
    const own = this.membersOf(classId).get(member);
    if (own !== undefined) return own;
    if (depth <= 0) return null;
    for (const base of this.basesOf(classId)) {
      const hit = this.memberOfClass(base, member, depth - 1);
      if (hit !== null) return hit;
    }
    return null;
  }
}

function firstById(rows: ReadonlyArray<{ id: number; name: string }>): Map<string, number> {
  const map = new Map<string, number>();
  for (const r of rows) if (!map.has(r.name)) map.set(r.name, r.id);
  return map;
}
