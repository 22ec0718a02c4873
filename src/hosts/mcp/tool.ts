import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { AppError, serializeError, type RepoInfo } from '../../shared/contract';
import type { EngineClient } from './engine';
import type { Freshness } from './freshness';
import type { RepoResolver } from './repos';

/** What every tool is given. */
export interface ToolDeps {
  engine: EngineClient;
  repos: RepoResolver;
}

/** The `repo` argument: absent when the server serves one repository (`--repo`). */
export function repoArg(deps: ToolDeps): { repo?: z.ZodString } {
  if (deps.repos.fixed !== undefined) return {};
  return { repo: z.string().min(1).max(4096).describe('The repository: its absolute folder path or its id (list_repositories lists the indexed ones).') };
}

/** The repository an answer is about, as every tool's output names it. */
export const repositorySchema = z.object({ id: z.string(), name: z.string(), path: z.string() });

/** How current the index was (see FreshnessKeeper). */
export const indexSchema = z.object({
  state: z.enum(['fresh', 'updating', 'stale']),
  lastIndexedAt: z.string().nullable(),
  reindexed: z.boolean(),
  note: z.string().optional(),
});

/** A reason as `{kind, detail}` (src/shared/contract/reasons.ts). */
export const reasonsSchema = z.array(z.object({ kind: z.string(), detail: z.record(z.string(), z.unknown()) }));

/** The repository part of an output. */
export function repository(repo: RepoInfo): z.infer<typeof repositorySchema> {
  return { id: repo.id, name: repo.name, path: repo.path };
}

/** `path:line` or `path:start-end`: the citation an agent can open. */
export function cite(path: string, start?: number | null, end?: number | null): string {
  if (start === undefined || start === null) return path;
  return end !== undefined && end !== null && end !== start ? `${path}:${start}-${end}` : `${path}:${start}`;
}

/** The index line that leads a text answer when the index is not current. */
export function indexLine(index: Freshness): string[] {
  return index.note ? [`Note: ${index.note}`, ''] : [];
}

/** A successful answer: readable text plus the structured content the output schema describes. */
export function answer(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

/**
 * Run a tool's body; a failure becomes an MCP tool error (isError) whose text names the problem
 * and the fix — never a stack. Internal errors are logged with their stack on stderr.
 */
export async function guarded(body: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await body();
  } catch (error) {
    const wire = serializeError(error);
    if (!(error instanceof AppError)) process.stderr.write(`cra mcp: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return { content: [{ type: 'text', text: `${wire.code}: ${wire.message}` }], isError: true };
  }
}
