import { inSlots, SLOT_MARKS } from './slots';
import type { StatementCache } from './statements';

/** A symbol as the symbol-graph expansion of search reads it. */
export interface GraphSymbol {
  id: number;
  fileId: number;
  name: string;
  qualifiedName: string;
  kind: string;
  parentId: number | null;
}

/** A reference out of a symbol: `fromId` calls or inherits from `name` (`toId` when resolved). */
export interface SymbolReference {
  fromId: number;
  toId: number | null;
  name: string;
}

/** A resolved base-class edge: `fromId` inherits from `toId`. */
export interface SymbolEdge {
  fromId: number;
  toId: number;
}

const SYMBOL_COLUMNS = 'id, file_id as fileId, name, qualified_name as qualifiedName, kind, parent_id as parentId';

/**
 * The symbol graph of a curated index as search's expansion walks it (core/search/expand.ts):
 * symbols by id, members of classes, resolved calls and base classes out of symbols, subclasses
 * into them. Every read is one prepared statement per {@link SLOT_MARKS} list of ids, an index
 * lookup per id (`symbols` primary key and `symbols_parent`, `refs_from`, `refs_target`), so a walk
 * costs a few statements whatever the repository's size; each read is capped by `limit` rows.
 */
export class SymbolGraph {
  constructor(private readonly sql: StatementCache) {}

  /** The symbols with these ids. */
  symbols(ids: readonly number[]): GraphSymbol[] {
    return this.each(ids, `select ${SYMBOL_COLUMNS} from symbols where id in (${SLOT_MARKS})`, ids.length);
  }

  /** The members (methods, nested classes) of these symbols, at most `limit`. */
  members(ids: readonly number[], limit: number): GraphSymbol[] {
    return this.each(ids, `select ${SYMBOL_COLUMNS} from symbols where parent_id in (${SLOT_MARKS}) limit ${Math.trunc(limit)}`, limit);
  }

  /**
   * References out of these symbols, resolved or not (`toId` null: the indexer could not tell the
   * target, e.g. a name imported through a package's re-export; `name` is as written, `self.x`
   * included): calls (`call`, `attribute_call`) or base classes (`inherit`), at most `limit`.
   */
  references(ids: readonly number[], kind: 'call' | 'inherit', limit: number): SymbolReference[] {
    const kinds = kind === 'inherit' ? "('inherit')" : "('call', 'attribute_call')";
    return this.each(
      ids,
      `select distinct from_symbol_id as fromId, target_symbol_id as toId, name from symbol_references
       where from_symbol_id in (${SLOT_MARKS}) and kind in ${kinds} limit ${Math.trunc(limit)}`,
      limit,
    );
  }

  /** Symbols (not variables or constants) with one of these exact names, at most `limit`. */
  symbolsNamed(names: readonly string[], limit: number): GraphSymbol[] {
    return this.each(names, `select ${SYMBOL_COLUMNS} from symbols where name in (${SLOT_MARKS}) and kind not in ('variable', 'constant') limit ${Math.trunc(limit)}`, limit);
  }

  /** The symbols that start inside these chunks (the symbols a chunk is about), at most `limit`. */
  symbolsInChunks(chunkIds: readonly number[], limit: number): GraphSymbol[] {
    const columns = SYMBOL_COLUMNS.split(', ').map((c) => `s.${c}`).join(', ');
    return this.each(
      chunkIds,
      `select ${columns} from chunks c join symbols s on s.file_id = c.file_id and s.start_line between c.start_line and c.end_line
       where c.id in (${SLOT_MARKS}) and s.kind not in ('variable', 'constant') limit ${Math.trunc(limit)}`,
      limit,
    );
  }

  /** Classes that name one of these as a base class (`fromId` the subclass), at most `limit`. */
  subclasses(ids: readonly number[], limit: number): SymbolEdge[] {
    return this.each(
      ids,
      `select distinct from_symbol_id as fromId, target_symbol_id as toId
       from symbol_references where target_symbol_id in (${SLOT_MARKS}) and kind = 'inherit' and from_symbol_id is not null limit ${Math.trunc(limit)}`,
      limit,
    );
  }

  /** Rows of one statement over every slot list of `ids`, at most `limit` in all. */
  private each<T>(ids: ReadonlyArray<number | string>, sql: string, limit: number): T[] {
    const statement = this.sql.rowsOf(sql);
    const out: T[] = [];
    for (const slots of inSlots([...new Set(ids)])) {
      if (out.length >= limit) break;
      out.push(...(statement.all(...slots) as T[]));
    }
    return out.slice(0, limit);
  }
}
