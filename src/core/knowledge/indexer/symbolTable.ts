import type { Db } from '../../platform/db/open';

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
 * member names per symbol and resolved base classes per class, read from the database on first need
 * and cached (not registered from what the run wrote: a 50k-file corpus has hundreds of thousands of
 * symbols, and the rows are there). The first definition of a name wins (lowest id).
 *
 * Symbols with ids from `writtenFrom` on were written by this run (SQLite gives a new row an id
 * above every id in its table, so they are above every symbol kept from before): their `inherit`
 * references are not stored yet, so their bases are what `setBases` recorded, none otherwise.
 */
export class SymbolTable {
  private readonly topLevel = new Map<number, Map<string, number>>();
  private readonly children = new Map<number, Map<string, number>>();
  private readonly bases = new Map<number, number[]>();
  private readonly stmt;

  constructor(
    db: Db,
    private readonly writtenFrom = Number.POSITIVE_INFINITY,
  ) {
    this.stmt = {
      topLevel: db.prepare('select id, name from symbols where file_id = ? and parent_id is null order by id'),
      members: db.prepare('select id, name from symbols where parent_id = ? order by id'),
      bases: db.prepare("select target_symbol_id from symbol_references where from_symbol_id = ? and kind = 'inherit' and target_symbol_id is not null").pluck(),
    };
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

  /** Cache a file's top-level symbols from its rows (all its symbols, ascending id) read anyway. */
  knowFile(fileId: number, rows: ReadonlyArray<{ id: number; name: string; parentId: number | null }>): void {
    if (!this.topLevel.has(fileId)) this.topLevel.set(fileId, firstById(rows.filter((r) => r.parentId === null)));
  }

  /** Direct members of a symbol by name. */
  membersOf(symbolId: number): Map<string, number> {
    let map = this.children.get(symbolId);
    if (!map) {
      map = firstById(this.stmt.members.all(symbolId) as Array<{ id: number; name: string }>);
      this.children.set(symbolId, map);
    }
    return map;
  }

  /** Resolved base classes of a class (written by this run: what `setBases` recorded; others: their stored `inherit` targets). */
  basesOf(classId: number): number[] {
    let bases = this.bases.get(classId);
    if (!bases) {
      bases = classId >= this.writtenFrom ? [] : (this.stmt.bases.all(classId) as number[]);
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
    if (classId < this.writtenFrom) this.bases.delete(classId);
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
