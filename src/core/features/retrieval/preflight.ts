/**
 * Checks before a retrieval runs (docs/design.md, Preflight checks), in every path that
 * uses the pipeline: a model is configured (else: run `cra init`), the index is there and has
 * files (else: run `cra index`), and whether enrichment metadata was promoted (absent: one info
 * line, tier 4 skipped — not an error).
 */
import { AppError } from '../../../shared/contract';
import type { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';
import { emptyIndex } from '../../knowledge/repos/indexed';
import { hasFileMetadata } from './stages/scope';

/** What preflight found: info lines to show, and whether tier 4 can run. */
export interface PreflightResult {
  info: string[];
  hasMetadata: boolean;
}

/** What preflight reads: the model routing (throws CONFIG_MISSING naming `cra init` when [models] is absent) and the repository's index. */
export interface PreflightInput {
  /** Resolve the scope stage's model; the router's own error says to run `cra init`. */
  resolveModel: () => unknown;
  kb: KnowledgeBase;
  /** The repository's folder, for the messages. */
  repoPath: string;
}

/** Run the checks; throws the first hard failure with its fix. */
export function preflightRetrieval(input: PreflightInput): PreflightResult {
  try {
    input.resolveModel();
  } catch (error) {
    if (error instanceof AppError && error.code === 'CONFIG_MISSING' && !/cra init|Models page/.test(error.message)) throw new AppError('CONFIG_MISSING', `${error.message} Run \`cra init\` to configure models.`);
    throw error;
  }
  if (input.kb.getFiles().length === 0) throw emptyIndex(input.repoPath);
  const hasMetadata = hasFileMetadata(input.kb);
  return { hasMetadata, info: hasMetadata ? [] : [`enrichment not found: no file metadata in the index of ${input.repoPath}, so scope tier 4 (metadata matches) is skipped. \`cra enrich ${input.repoPath} --promote\` adds it.`] };
}
