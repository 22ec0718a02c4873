import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { formatReasons } from '../../../shared/contract/reasons';
import { answer, cite, guarded, indexLine, indexSchema, reasonsSchema, repoArg, repository, repositorySchema, type ToolDeps } from '../tool';

const outputSchema = {
  repository: repositorySchema,
  index: indexSchema,
  results: z.array(
    z.object({
      path: z.string(),
      citation: z.string().describe('path:line to open the file at'),
      score: z.number(),
      symbols: z.array(z.object({ name: z.string(), kind: z.string(), startLine: z.number(), endLine: z.number(), citation: z.string() })),
      lines: z.array(z.object({ line: z.number(), text: z.string() })),
      reasons: reasonsSchema,
      why: z.string(),
    }),
  ),
  tookMs: z.number(),
  note: z.string().optional(),
};

/** search_code: ranked files with their best symbols, line ranges and reasons (search/query). */
export function registerSearchCode(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    'search_code',
    {
      title: 'Search code',
      description:
        'Rank the files of an indexed repository for a query (identifiers or plain words): BM25 over code and paths, plus import, co-change and commit-history signals; no model involved. ' +
        'Each result gives path:line to open, its best-matching symbols with line ranges, the matching lines and why it ranked. ' +
        'Use it to find where something is defined or handled; then read_code to read it.',
      inputSchema: {
        ...repoArg(deps),
        query: z.string().trim().min(1).max(2000).describe('What to look for: identifiers (parseConfig, HttpClient) or words (retry on timeout).'),
        limit: z.number().int().min(1).max(50).default(10).describe('How many files (1-50, default 10).'),
      },
      outputSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      guarded(async () => {
        const { repo, index } = await deps.repos.open(args.repo);
        const response = await deps.engine.request('search/query', { repoId: repo.id, query: args.query, limit: args.limit });
        const results = response.results.map((r) => ({
          path: r.path,
          citation: cite(r.path, r.bestLine),
          score: Math.round(r.score * 1000) / 1000,
          // The fields of the output schema only (a symbol's ranking `score` is the engine's, not the tool's).
          symbols: r.symbols.map((s) => ({ name: s.name, kind: s.kind, startLine: s.startLine, endLine: s.endLine, citation: cite(r.path, s.startLine, s.endLine) })),
          lines: r.lines,
          reasons: r.why,
          why: formatReasons(r.why),
        }));
        const text = [
          ...indexLine(index),
          results.length === 0 ? `No matching files in ${repo.name} for "${args.query}".` : `${results.length} files in ${repo.name} for "${args.query}" (${response.tookMs} ms):`,
          ...results.flatMap((r, i) => [
            `${i + 1}. ${r.citation}  — ${r.why}`,
            ...r.symbols.slice(0, 3).map((s) => `   ${s.kind} ${s.name}  ${s.citation}`),
            ...r.lines.slice(0, 3).map((l) => `   ${l.line}: ${l.text.trim().slice(0, 160)}`),
          ]),
          ...(response.note ? [`Note: ${response.note}`] : []),
        ].join('\n');
        return answer(text, { repository: repository(repo), index, results, tookMs: response.tookMs, ...(response.note ? { note: response.note } : {}) });
      }),
  );
}
