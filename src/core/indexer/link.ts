import type { Db } from '../db/open';
import type { ExtractedImport, ParsedLanguage } from './extract/types';

/** Resolves one import of a file to repository paths (empty when external or unknown). */
export type ResolveImport = (fromPath: string, imp: ExtractedImport, language: ParsedLanguage) => string[];

/** Which files to re-link: `all`, or the ids whose imports / references must be resolved again. */
export interface LinkScope {
  imports: Set<number> | 'all';
  references: Set<number> | 'all';
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
  file_id: number;
  specifier: string;
  names_json: string;
  alias: string | null;
  level: number;
  is_reexport: number;
  is_system: number;
  line: number;
}

/**
 * Turns stored imports into `file_dependencies` and resolves `symbol_references` to target symbols
 * where the target is determinable: local definitions, imported names, `module.func` through an
 * imported module, `self.method` / `this.method` within the enclosing class (and its resolved base
 * classes), `Class.member`. Unresolved references keep a null target.
 */
export class Linker {
  private readonly files = new Map<number, FileInfo>();
  private readonly idByPath = new Map<string, number>();
  private readonly topLevel = new Map<number, Map<string, number>>();
  private readonly children = new Map<number, Map<string, number>>();
  private readonly bases = new Map<number, Array<{ id: number }>>();
  private readonly stmt;

  constructor(
    private readonly db: Db,
    private readonly resolveImport: ResolveImport,
  ) {
    this.stmt = {
      imports: db.prepare('select * from imports where file_id = ? order by line'),
      topLevel: db.prepare('select id, name from symbols where file_id = ? and parent_id is null order by id'),
      members: db.prepare('select id, name from symbols where parent_id = ? order by id'),
      refs: db.prepare('select id, name, kind, from_symbol_id as fromId, target_symbol_id as target from symbol_references where file_id = ?'),
      fileSymbols: db.prepare('select id, kind, parent_id as parentId from symbols where file_id = ?'),
      setTarget: db.prepare('update symbol_references set target_symbol_id = ? where id = ?'),
      bases: db.prepare("select target_symbol_id as id from symbol_references where from_symbol_id = ? and kind = 'inherit' and target_symbol_id is not null"),
    };
    const rows = db.prepare('select id, path, language from files where skip_reason is null').all() as FileInfo[];
    for (const f of rows) {
      this.files.set(f.id, f);
      this.idByPath.set(f.path, f.id);
    }
  }

  /** Resolve imports and then references for the given scope; returns the number of dependency edges written. */
  run(scope: LinkScope, isParsed: (language: string) => language is ParsedLanguage): number {
    const importFiles = scope.imports === 'all' ? [...this.files.keys()] : [...scope.imports].filter((id) => this.files.has(id));
    let edges = 0;
    const del = this.db.prepare('delete from file_dependencies where from_file_id = ?');
    const ins = this.db.prepare('insert or ignore into file_dependencies (from_file_id, to_file_id, kind, specifier) values (?, ?, ?, ?)');
    for (const fileId of importFiles) {
      del.run(fileId);
      for (const { imp, targets } of this.resolvedImports(fileId, isParsed)) {
        for (const to of targets) if (to !== fileId) edges += ins.run(fileId, to, imp.isReexport ? 'reexport' : 'import', imp.specifier).changes;
      }
    }
    const refFiles = scope.references === 'all' ? [...this.files.keys()] : [...scope.references].filter((id) => this.files.has(id));
    for (const fileId of refFiles) this.resolveReferences(fileId, isParsed);
    return edges;
  }

  private readonly importCache = new Map<number, Array<{ imp: ExtractedImport; targets: number[] }>>();

  private resolvedImports(fileId: number, isParsed: (language: string) => language is ParsedLanguage): Array<{ imp: ExtractedImport; targets: number[] }> {
    let cached = this.importCache.get(fileId);
    if (!cached) {
      cached = this.resolveImportsOf(fileId, isParsed);
      this.importCache.set(fileId, cached);
    }
    return cached;
  }

  private resolveImportsOf(fileId: number, isParsed: (language: string) => language is ParsedLanguage): Array<{ imp: ExtractedImport; targets: number[] }> {
    const file = this.files.get(fileId)!;
    if (!isParsed(file.language)) return [];
    const rows = this.stmt.imports.all(fileId) as ImportRow[];
    return rows.map((row) => {
      const imp: ExtractedImport = {
        specifier: row.specifier,
        names: JSON.parse(row.names_json) as string[],
        alias: row.alias,
        level: row.level,
        isReexport: row.is_reexport === 1,
        isSystem: row.is_system === 1,
        line: row.line,
      };
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

  private symbolsOf(fileId: number): Map<string, number> {
    let map = this.topLevel.get(fileId);
    if (!map) {
      map = new Map();
      const rows = this.stmt.topLevel.all(fileId) as Array<{ id: number; name: string }>;
      for (const r of rows) if (!map.has(r.name)) map.set(r.name, r.id);
      this.topLevel.set(fileId, map);
    }
    return map;
  }

  private membersOf(symbolId: number): Map<string, number> {
    let map = this.children.get(symbolId);
    if (!map) {
      map = new Map();
      const rows = this.stmt.members.all(symbolId) as Array<{ id: number; name: string }>;
      for (const r of rows) if (!map.has(r.name)) map.set(r.name, r.id);
      this.children.set(symbolId, map);
    }
    return map;
  }

  private bindings(fileId: number, isParsed: (language: string) => language is ParsedLanguage): Map<string, Binding> {
    const out = new Map<string, Binding>();
    for (const { imp, targets } of this.resolvedImports(fileId, isParsed)) {
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

  private resolveReferences(fileId: number, isParsed: (language: string) => language is ParsedLanguage): void {
    const refs = this.stmt.refs.all(fileId) as Array<{
      id: number;
      name: string;
      kind: string;
      fromId: number | null;
      target: number | null;
    }>;
    if (refs.length === 0) return;
    const symbols = this.stmt.fileSymbols.all(fileId) as Array<{ id: number; kind: string; parentId: number | null }>;
    const byId = new Map(symbols.map((s) => [s.id, s]));
    const bindings = this.bindings(fileId, isParsed);
    const local = this.symbolsOf(fileId);
    const update = this.stmt.setTarget;
    const enclosingClass = (id: number | null): number | null => {
      for (let cur = id === null ? undefined : byId.get(id); cur; cur = cur.parentId === null ? undefined : byId.get(cur.parentId)) {
        if (cur.kind === 'class' || cur.kind === 'struct' || cur.kind === 'interface') return cur.id;
      }
      return null;
    };
    for (const ref of refs) {
      if (ref.kind === 'import') continue;
      const target = this.resolveName(ref.name, { local, bindings, classId: enclosingClass(ref.fromId) });
      if (target === ref.target) continue;
      update.run(target, ref.id);
      if (ref.kind === 'inherit' && ref.fromId !== null) this.bases.delete(ref.fromId);
    }
  }

  private resolveName(name: string, env: { local: Map<string, number>; bindings: Map<string, Binding>; classId: number | null }): number | null {
    const parts = name.split('.').filter(Boolean);
    if (parts.length === 0) return null;
    const [head = '', member = ''] = parts;
    if ((head === 'self' || head === 'cls' || head === 'this') && env.classId !== null) {
      return parts.length === 1 ? env.classId : this.memberOfClass(env.classId, member, 2);
    }
    if (parts.length === 1) return env.local.get(head) ?? this.bound(env.bindings.get(head));
    // Longest dotted prefix bound to a module: `os.path.join` via `import os.path`.
    for (let n = parts.length - 1; n >= 1; n--) {
      const binding = env.bindings.get(parts.slice(0, n).join('.'));
      if (binding && binding.name === null) return this.lookupIn(binding.fileIds, parts[n]!);
    }
    const base = env.local.get(head) ?? this.bound(env.bindings.get(head));
    return base === null ? null : this.memberOfClass(base, member, 2);
  }

  private bound(binding: Binding | undefined): number | null {
    if (!binding || binding.name === null) return null;
    return this.lookupIn(binding.fileIds, binding.name);
  }

  private lookupIn(fileIds: number[], name: string): number | null {
    for (const id of fileIds) {
      const hit = this.symbolsOf(id).get(name);
      if (hit !== undefined) return hit;
    }
    return null;
  }

  /** Resolved base classes of a class (cached; `resolveReferences` drops the entry when it re-targets an `inherit` reference). */
  private basesOf(classId: number): Array<{ id: number }> {
    let bases = this.bases.get(classId);
    if (!bases) {
      bases = this.stmt.bases.all(classId) as Array<{ id: number }>;
      this.bases.set(classId, bases);
    }
    return bases;
  }

  /** A member of a class, else of its base classes (resolved `inherit` references), `depth` levels up. */
  private memberOfClass(classId: number, member: string, depth: number): number | null {
    const own = this.membersOf(classId).get(member);
    if (own !== undefined) return own;
    if (depth <= 0) return null;
    for (const base of this.basesOf(classId)) {
      const hit = this.memberOfClass(base.id, member, depth - 1);
      if (hit !== null) return hit;
    }
    return null;
  }
}

function stem(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (name === '__init__.py' || /^index\.[cm]?[jt]sx?$/.test(name)) {
    const dir = path.slice(0, Math.max(path.lastIndexOf('/'), 0));
    return dir.slice(dir.lastIndexOf('/') + 1);
  }
  return name.replace(/\.[^.]+$/, '');
}
