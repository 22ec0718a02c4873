import { join } from 'node:path';
import type { SkipReason } from '../../../../shared/contract';
import { buildChunks, type Chunk } from '../chunks';
import type { Extractor } from '../extract/extractor';
import { detectLanguage } from '../extract/languages';
import type { FileExtraction } from '../extract/types';
import { readAndClassify } from '../read';

/** One file to prepare: everything a worker thread needs (plain data, structured-clone safe). */
export interface PrepareJob {
  /** The repository's absolute path (one string shared by every job of a run). */
  root: string;
  relPath: string;
  size: number;
  maxFileBytes: number;
  /** What the index holds for this path; equal hash and skip reason mean "unchanged". */
  knownHash: string | null;
  knownSkipReason: string | null;
}

/** A file read, classified and (when changed and parseable) parsed and chunked. Plain data. */
export interface PreparedFile {
  hash: string | null;
  encoding: 'utf8' | 'latin1' | null;
  lines: number;
  skipReason: SkipReason | null;
  /** Content identical to what the index holds: nothing else was computed. */
  unchanged: boolean;
  extraction: FileExtraction | null;
  /** Search chunks of the text (a generated file: of its head; null for other skipped files and unchanged ones). */
  chunks: Chunk[] | null;
}

/** Parses a file; returns null when the parser failed (the file is then indexed as text). */
export type ExtractFn = (extraction: { language: NonNullable<ReturnType<typeof detectLanguage>>; text: string; path: string }) => FileExtraction | null;

/**
 * Read, hash and classify one file; when its content differs from the index, extract it (if its
 * language is parsed and `extract` is given) and cut it into search chunks. Runs the same in the
 * main thread and in the parse workers.
 */
export function prepareFile(job: PrepareJob, extract: ExtractFn | null): PreparedFile {
  const read = readAndClassify(join(job.root, job.relPath), job.relPath, job.size, job.maxFileBytes);
  const base = { hash: read.hash, encoding: read.encoding, lines: read.lines, skipReason: read.skipReason };
  if (job.knownHash !== null && read.hash !== null && job.knownHash === read.hash && job.knownSkipReason === read.skipReason) {
    return { ...base, unchanged: true, extraction: null, chunks: null };
  }
  // A generated file is not parsed; its head alone is chunked, so search can still find it.
  if (read.text === null) return { ...base, unchanged: false, extraction: null, chunks: read.head ? buildChunks(read.head, []) : null };
  const language = detectLanguage(job.relPath);
  const extraction = language && extract ? extract({ language, text: read.text, path: job.relPath }) : null;
  return { ...base, unchanged: false, extraction, chunks: buildChunks(read.text, extraction?.symbols ?? []) };
}

/**
 * The synchronous extract step over a loaded extractor: a parser failure degrades the file to
 * text-only search (logged), it never fails the index.
 */
export function extractWith(extractor: Extractor): ExtractFn {
  return ({ language, text, path }) => {
    try {
      return extractor.extract(language, text);
    } catch (error) {
      console.warn(`[indexer] could not parse ${path}: ${(error as Error).message}`);
      return null;
    }
  };
}
