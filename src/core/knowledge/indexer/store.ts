import type { SkipReason } from '../../../shared/contract';
import type { Db } from '../../platform/db/open';
import type { Chunk } from './chunks';
import type { FileExtraction } from './extract/types';
import type { WrittenSymbol } from './symbolTable';

/** The row the indexer writes for one listed file. */
export interface FileRow {
  path: string;
  language: string;
  size: number;
  lines: number;
  contentHash: string | null;
  mtimeMs: number;
  isTest: boolean;
  skipReason: SkipReason | null;
  encoding: string | null;
  hasSyntaxErrors: boolean;
  moduleDoc: string | null;
  pathTokens: string;
}

/** What the index already holds for a path (the incremental fast path compares these). */
export interface StoredFile {
  id: number;
  path: string;
  size: number;
  mtimeMs: number | null;
  contentHash: string | null;
  skipReason: string | null;
}

/**
 * Prepared statements of one write connection of the curated database. The caller owns the
 * transaction; every method is synchronous.
 */
export class CuratedWriter {
  private readonly s;

  constructor(private readonly db: Db) {
    this.s = {
      insertFile: db.prepare(
        `insert into files (path, language, size, lines, content_hash, mtime_ms, is_test, skip_reason, encoding, has_syntax_errors, module_doc, path_tokens, indexed_at)
         values (@path, @language, @size, @lines, @contentHash, @mtimeMs, @isTest, @skipReason, @encoding, @hasSyntaxErrors, @moduleDoc, @pathTokens, @indexedAt)`,
      ),
      updateFile: db.prepare(
        `update files set language=@language, size=@size, lines=@lines, content_hash=@contentHash, mtime_ms=@mtimeMs, is_test=@isTest, skip_reason=@skipReason,
         encoding=@encoding, has_syntax_errors=@hasSyntaxErrors, module_doc=@moduleDoc, indexed_at=@indexedAt where id=@id`,
      ),
      referrers: db
        .prepare('select distinct r.file_id from symbols s join symbol_references r on r.target_symbol_id = s.id where s.file_id = ? and r.file_id != s.file_id')
        .pluck(),
      touchFile: db.prepare('update files set mtime_ms = ?, size = ? where id = ?'),
      deleteFile: db.prepare('delete from files where id = ?'),
      clearSymbols: db.prepare('delete from symbols where file_id = ?'),
      clearRefs: db.prepare('delete from symbol_references where file_id = ?'),
      clearImports: db.prepare('delete from imports where file_id = ?'),
      clearRationale: db.prepare('delete from rationale_comments where file_id = ?'),
      clearChunks: db.prepare('delete from chunks where file_id = ?'),
      clearDeps: db.prepare('delete from file_dependencies where from_file_id = ?'),
      insertSymbol: db.prepare(
        `insert into symbols (file_id, name, qualified_name, kind, signature, docstring, start_line, end_line, parent_id, is_exported)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      insertImport: db.prepare(
        'insert into imports (file_id, specifier, names_json, alias, level, is_reexport, is_system, is_module, line) values (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      insertRationale: db.prepare('insert into rationale_comments (file_id, symbol_id, tag, text, line) values (?, ?, ?, ?, ?)'),
      insertChunk: db.prepare(
        'insert into chunks (file_id, path, start_line, end_line, kind, symbol_names, identifiers, text) values (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
    };
  }

  /** Every file the index holds, by path. */
  storedFiles(): Map<string, StoredFile> {
    const rows = this.db
      .prepare('select id, path, size, mtime_ms as mtimeMs, content_hash as contentHash, skip_reason as skipReason from files')
      .all() as StoredFile[];
    return new Map(rows.map((r) => [r.path, r]));
  }

  /** Insert a new file or replace what an existing one held; returns its id (stable across updates). */
  writeFile(row: FileRow, existingId: number | undefined): number {
    const params = { ...row, isTest: row.isTest ? 1 : 0, hasSyntaxErrors: row.hasSyntaxErrors ? 1 : 0, indexedAt: new Date().toISOString() };
    if (existingId === undefined) return Number(this.s.insertFile.run(params).lastInsertRowid);
    this.clearContent(existingId);
    this.s.updateFile.run({ ...params, id: existingId });
    return existingId;
  }

  /** Other files with references resolved into this file's symbols. */
  referrersOf(fileId: number): number[] {
    return this.s.referrers.all(fileId) as number[];
  }

  /** Record a new mtime for a file whose content did not change. */
  touchFile(id: number, mtimeMs: number, size: number): void {
    this.s.touchFile.run(mtimeMs, size, id);
  }

  /** Remove a file and everything derived from it. */
  deleteFile(id: number): void {
    this.clearContent(id);
    this.s.deleteFile.run(id);
  }

  private clearContent(id: number): void {
    this.s.clearRefs.run(id);
    this.s.clearRationale.run(id);
    this.s.clearSymbols.run(id);
    this.s.clearImports.run(id);
    this.s.clearChunks.run(id);
    this.s.clearDeps.run(id);
  }

  /**
   * Store the symbols, imports and rationale of a parsed file and return its symbols with their
   * ids. References are left to the linker, which inserts them already resolved.
   */
  writeExtraction(fileId: number, extraction: FileExtraction): WrittenSymbol[] {
    const written: WrittenSymbol[] = [];
    for (const sym of extraction.symbols) {
      const parentId = sym.parent === null ? null : (written[sym.parent]?.id ?? null);
      const info = this.s.insertSymbol.run(fileId, sym.name, sym.qualifiedName, sym.kind, sym.signature, sym.docstring, sym.startLine, sym.endLine, parentId, sym.isExported ? 1 : 0);
      written.push({ id: Number(info.lastInsertRowid), name: sym.name, kind: sym.kind, parentId });
    }
    const symbolId = (index: number | null) => (index === null ? null : (written[index]?.id ?? null));
    for (const imp of extraction.imports) {
      this.s.insertImport.run(fileId, imp.specifier, JSON.stringify(imp.names), imp.alias, imp.level, imp.isReexport ? 1 : 0, imp.isSystem ? 1 : 0, imp.isModule ? 1 : 0, imp.line);
    }
    for (const r of extraction.rationale) this.s.insertRationale.run(fileId, symbolId(r.fromSymbol), r.tag, r.text, r.line);
    return written;
  }

  /** Store the search chunks of a file (the FTS index follows through triggers, or the full build's chunk index); returns their ids. */
  writeChunks(fileId: number, path: string, chunks: readonly Chunk[]): number[] {
    return chunks.map((c) => Number(this.s.insertChunk.run(fileId, path, c.startLine, c.endLine, c.kind, c.symbolNames, c.identifiers, c.text).lastInsertRowid));
  }
}
