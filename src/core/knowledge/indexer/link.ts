import { BatchInsert } from '../../platform/db/batch';
import type { Db } from '../../platform/db/open';
import type { ExtractedImport, ParsedLanguage } from './extract/types';
import type { PendingRange, PendingReferences } from './pendingRefs';
import { isClassLike, SymbolTable } from './symbolTable';

/** Resolves one import of a file to repository paths (empty when external or unknown). */
export type ResolveImport = (fromPath: string, imp: ExtractedImport, language: ParsedLanguage) => string[];

/** Files to work on: every indexed file, or the given ids. */
export type FileScope = Iterable<number> | 'all';

/**
 * What this run wrote for a parsed file; its references are resolved and inserted by
 * `insertReferences`. Its symbols and imports are read back from the database, not held.
 */
export interface WrittenFile {
  /** The id of its first symbol (null when it has none). */
  firstSymbolId: number | null;
  /** Its references, staged (null when it has none). */
  references: PendingRange | null;
}

interface FileInfo {
  id: number;
  path: string;
  language: string;
}

interface Binding {
  fileIds: number[];
  /** The imported name in the target file; null binds the module itself. */
  name: string | null;
}

interface ImportRow {
  specifier: string;
  names_json: string;
  alias: string | null;
  level: number;
  is_reexport: number;
  is_system: number;
  is_module: number;
  line: number;
}

interface Env {
  local: Map<string, number>;
  bindings: Map<string, Binding>;
  /** Symbol by id, for the enclosing class of a reference. */
  symbol: (id: number) => { id: number; kind: string; parentId: number | null } | undefined;
}

type IsParsed = (language: string) => language is ParsedLanguage;

/**
 * Turns imports into `file_dependencies` and resolves `symbol_references` to target symbols
 * where the target is determinable: local definitions, imported names, `module.func` through an
 * imported module, `self.method` / `this.method` within the enclosing class (and its resolved base
 * classes), `Class.member`. Unresolved references keep a null target.
 *
 * The references of files written by this run, staged while the files were written
 * (pendingRefs.ts), are inserted already resolved (base classes first, so `self.x` finds
 * inherited members in any file order); stored references of other files (dependents of changed
 * files) are re-resolved in place.
 */
export class Linker {
  private readonly files = new Map<number, FileInfo>();
  private readonly idByPath = new Map<string, number>();
  private readonly table: SymbolTable;
  private readonly importCache = new Map<number, Array<{ imp: ExtractedImport; targets: number[] }>>();
  private readonly stmt;

  constructor(
    private readonly db: Db,
    private readonly resolveImport: ResolveImport,
    private readonly isParsed: IsParsed,
    private readonly written: ReadonlyMap<number, WrittenFile> = new Map(),
    private readonly pending: PendingReferences | null = null,
  ) {
    this.stmt = {
      // Ties in line keep the extraction order (insertion order).
      imports: db.prepare('select specifier, names_json, alias, level, is_reexport, is_system, is_module, line from imports where file_id = ? order by line, id'),
      refs: db.prepare('select id, name, kind, from_symbol_id as fromId, target_symbol_id as target from symbol_references where file_id = ?'),
      fileSymbols: db.prepare('select id, name, kind, parent_id as parentId from symbols where file_id = ? order by id'),
      setTarget: db.prepare('update symbol_references set target_symbol_id = ? where id = ?'),
      deleteDeps: db.prepare('delete from file_dependencies where from_file_id = ?'),
      insertDep: db.prepare('insert or ignore into file_dependencies (from_file_id, to_file_id, kind, specifier) values (?, ?, ?, ?)'),
    };
    const rows = db.prepare('select id, path, language from files where skip_reason is null').all() as FileInfo[];
    for (const f of rows) {
      this.files.set(f.id, f);
      this.idByPath.set(f.path, f.id);
    }
    let writtenFrom = Number.POSITIVE_INFINITY;
    for (const file of written.values()) if (file.firstSymbolId !== null) writtenFrom = Math.min(writtenFrom, file.firstSymbolId);
    this.table = new SymbolTable(db, writtenFrom);
  }

  /** Rewrite the `file_dependencies` of the given files; returns the number of edges written. */
  linkImports(scope: FileScope): number {
    let edges = 0;
    for (const fileId of this.inScope(scope)) {
      this.stmt.deleteDeps.run(fileId);
      for (const { imp, targets } of this.resolvedImports(fileId)) {
        for (const to of targets) if (to !== fileId) edges += this.stmt.insertDep.run(fileId, to, imp.isReexport ? 'reexport' : 'import', imp.specifier).changes;
      }
    }
    return edges;
  }

  /**
   * Resolve and insert the staged references of every file written by this run (call after
   * `linkImports`), reading them back a batch at a time.
   */
  insertReferences(): void {
    if (!this.pending) return;
    const insert = new BatchInsert(this.db, 'symbol_references', ['file_id', 'from_symbol_id', 'name', 'kind', 'line', 'target_symbol_id']);
    /** Targets of the `inherit` references by staged rowid. */
    const inherited = new Map<number, number | null>();
    // Pass 1: inheritance, so that pass 2 can look members up in base classes of any file.
    for (const [fileId, file] of this.written) {
      if (!file.references?.inherits) continue;
      const env = this.envOf(fileId);
      const bases = new Map<number, number[]>();
      for (const ref of this.pending.inheritsOf(file.references)) {
        const target = this.resolveName(ref.name, env, ref.fromId);
        inherited.set(ref.id, target);
        if (target !== null && ref.fromId !== null) bases.set(ref.fromId, [...(bases.get(ref.fromId) ?? []), target]);
      }
      for (const [classId, ids] of bases) this.table.setBases(classId, ids);
    }
    // Pass 2: every reference in staged order (a file's are contiguous), so the rows are stored in that order.
    let env: Env | null = null;
    let envFile = -1;
    for (const rows of this.pending.batches()) {
      for (const ref of rows) {
        if (ref.fileId !== envFile || !env) {
          env = this.envOf(ref.fileId);
          envFile = ref.fileId;
        }
        let target: number | null = null;
        if (ref.kind === 'inherit') target = inherited.get(ref.id) ?? null;
        else if (ref.kind !== 'import') target = this.resolveName(ref.name, env, ref.fromId);
        insert.add(ref.fileId, ref.fromId, ref.name, ref.kind, ref.line, target);
      }
    }
    insert.flush();
  }

  /** Re-resolve the stored references of files not written by this run, updating changed targets. */
  updateReferences(scope: FileScope): void {
    for (const fileId of this.inScope(scope)) {
      if (this.written.has(fileId) || !this.isParsed(this.files.get(fileId)!.language)) continue;
      this.updateStored(fileId);
    }
  }

  private inScope(scope: FileScope): number[] {
    return scope === 'all' ? [...this.files.keys()] : [...scope].filter((id) => this.files.has(id));
  }

  private envOf(fileId: number): Env {
    const symbols = this.stmt.fileSymbols.all(fileId) as Array<{ id: number; name: string; kind: string; parentId: number | null }>;
    const byId = new Map(symbols.map((s) => [s.id, s]));
    // One read gives the file's top-level names too.
    this.table.knowFile(fileId, symbols);
    return { local: this.table.topLevelOf(fileId), bindings: this.bindings(fileId), symbol: (id) => byId.get(id) };
  }

  private updateStored(fileId: number): void {
    const refs = this.stmt.refs.all(fileId) as Array<{ id: number; name: string; kind: string; fromId: number | null; target: number | null }>;
    if (refs.length === 0) return;
    const env = this.envOf(fileId);
    for (const ref of refs) {
      if (ref.kind === 'import') continue;
      const target = this.resolveName(ref.name, env, ref.fromId);
      if (target === ref.target) continue;
      this.stmt.setTarget.run(target, ref.id);
      if (ref.kind === 'inherit' && ref.fromId !== null) this.table.dropBases(ref.fromId);
    }
  }

  private resolvedImports(fileId: number): Array<{ imp: ExtractedImport; targets: number[] }> {
    let cached = this.importCache.get(fileId);
    if (!cached) {
      cached = this.resolveImportsOf(fileId);
      this.importCache.set(fileId, cached);
    }
    return cached;
  }

  private resolveImportsOf(fileId: number): Array<{ imp: ExtractedImport; targets: number[] }> {
    const file = this.files.get(fileId)!;
    if (!this.isParsed(file.language)) return [];
    const imports = (this.stmt.imports.all(fileId) as ImportRow[]).map(fromRow);
    return imports.map((imp) => {
      let paths: string[] = [];
      try {
        paths = this.resolveImport(file.path, imp, file.language as ParsedLanguage);
      } catch {
        paths = [];
      }
      const targets = paths.map((p) => this.idByPath.get(p)).filter((id): id is number => id !== undefined);
      return { imp, targets };
    });
  }

  private bindings(fileId: number): Map<string, Binding> {
    const out = new Map<string, Binding>();
    for (const { imp, targets } of this.resolvedImports(fileId)) {
      if (targets.length === 0) continue;
      const named = imp.names.filter((n) => n !== '*' && n !== 'default');
      if (named.length === 0 || imp.alias) {
        // `import a.b` binds `a.b`; `import x as y`, `import * as ns`, `import Foo from` bind the alias.
        const local = imp.alias ?? imp.specifier.replace(/^\.+/, '');
        if (local) out.set(local, { fileIds: targets, name: null });
      }
      for (const name of named) {
        // `from pkg import mod` where mod is a module file binds the module, not a symbol.
        const moduleFile = targets.find((t) => stem(this.files.get(t)?.path ?? '') === name);
        out.set(name, moduleFile !== undefined ? { fileIds: [moduleFile], name: null } : { fileIds: targets, name });
      }
    }
    return out;
  }

  private resolveName(name: string, env: Env, fromId: number | null): number | null {
    const parts = name.split('.').filter(Boolean);
    if (parts.length === 0) return null;
    const [head = '', member = ''] = parts;
    if (head === 'self' || head === 'cls' || head === 'this') {
      const classId = enclosingClass(env, fromId);
      if (classId !== null) return parts.length === 1 ? classId : this.table.memberOfClass(classId, member, 2);
    }
    if (parts.length === 1) return env.local.get(head) ?? this.bound(env.bindings.get(head));
    // Longest dotted prefix bound to a module: `os.path.join` via `import os.path`.
    for (let n = parts.length - 1; n >= 1; n--) {
      const binding = env.bindings.get(parts.slice(0, n).join('.'));
      if (binding && binding.name === null) return this.lookupIn(binding.fileIds, parts[n]!);
    }
    const base = env.local.get(head) ?? this.bound(env.bindings.get(head));
    return base === null ? null : this.table.memberOfClass(base, member, 2);
  }

  private bound(binding: Binding | undefined): number | null {
    if (!binding || binding.name === null) return null;
    return this.lookupIn(binding.fileIds, binding.name);
  }

  private lookupIn(fileIds: number[], name: string): number | null {
    for (const id of fileIds) {
      const hit = this.table.topLevelOf(id).get(name);
      if (hit !== undefined) return hit;
    }
    return null;
  }
}

function enclosingClass(env: Env, fromId: number | null): number | null {
  for (let cur = fromId === null ? undefined : env.symbol(fromId); cur; cur = cur.parentId === null ? undefined : env.symbol(cur.parentId)) {
    if (isClassLike(cur.kind)) return cur.id;
  }
  return null;
}

function fromRow(row: ImportRow): ExtractedImport {
  return {
    specifier: row.specifier,
    names: JSON.parse(row.names_json) as string[],
    alias: row.alias,
    level: row.level,
    isReexport: row.is_reexport === 1,
    isSystem: row.is_system === 1,
    isModule: row.is_module === 1,
    line: row.line,
  };
}

function stem(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (name === '__init__.py' || /^index\.[cm]?[jt]sx?$/.test(name)) {
    const dir = path.slice(0, Math.max(path.lastIndexOf('/'), 0));
    return dir.slice(dir.lastIndexOf('/') + 1);
  }
  return name.replace(/\.[^.]+$/, '');
}
