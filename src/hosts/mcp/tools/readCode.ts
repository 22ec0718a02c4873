import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { AppError, type OutlineSymbol, type RepoFileView, type RepoInfo } from '../../../shared/contract';
import type { EngineClient } from '../engine';
import { answer, cite, guarded, indexLine, indexSchema, repoArg, repository, repositorySchema, type ToolDeps } from '../tool';

/** Most lines one answer carries; a longer file or symbol is cut, and the answer says where to go on. */
export const MAX_LINES = 800;
/** Most characters one answer carries. */
export const MAX_CHARS = 60_000;
/** Most bytes read of one file. */
const MAX_FILE_BYTES = 2_000_000;

const outputSchema = {
  repository: repositorySchema,
  index: indexSchema,
  path: z.string(),
  language: z.string(),
  citation: z.string().describe('path:start-end of the text returned'),
  symbol: z.object({ name: z.string(), qualifiedName: z.string(), kind: z.string(), signature: z.string() }).optional(),
  startLine: z.number(),
  endLine: z.number(),
  totalLines: z.number(),
  truncated: z.boolean().describe('true when the text stops before what was asked (size cap); read on from endLine + 1'),
  text: z.string(),
};

/** The one indexed file at a request-given path, after the repository's confinement (no `..`, no links out, no `.git`). */
export async function confinedFile(engine: EngineClient, repo: RepoInfo, path: string, maxContentBytes: number): Promise<RepoFileView> {
  return engine.request('repos/readFile', { repoId: repo.id, path, maxContentBytes });
}

/** The symbols of a file that a name designates: exact qualified name first, then exact name. */
function matching(symbols: readonly OutlineSymbol[], name: string): OutlineSymbol[] {
  const exact = symbols.filter((s) => s.qualifiedName === name);
  return exact.length > 0 ? exact : symbols.filter((s) => s.name === name || s.qualifiedName.endsWith(`.${name}`));
}

/** The file that defines `name` when no path was given: the search's best results are looked through for the definition. */
async function findDefinition(engine: EngineClient, repo: RepoInfo, name: string): Promise<{ view: RepoFileView; symbol: OutlineSymbol }> {
  const { results } = await engine.request('search/query', { repoId: repo.id, query: name, limit: 10 });
  for (const r of results) {
    if (!r.symbols.some((s) => s.name === name || name.endsWith(`.${s.name}`))) continue;
    const view = await engine.request('repos/file', { repoId: repo.id, path: r.path, maxContentBytes: MAX_FILE_BYTES });
    const found = matching(view.symbols, name)[0];
    if (found) return { view, symbol: found };
  }
  throw new AppError('NOT_FOUND', `No symbol named ${JSON.stringify(name)} is defined in the index of ${repo.name}; search_code finds similar names, or give its file as \`path\`.`);
}

/** read_code: a file, a line range or a symbol's body, confined to the repository, with a size cap. */
export function registerReadCode(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    'read_code',
    {
      title: 'Read code',
      description:
        "Read an indexed file of the repository, a line range of it, or one symbol's full body (function, class, method: by name or qualified name, e.g. Parser.parse). " +
        `Give path, or symbol, or both (symbol alone looks the definition up). Paths are relative to the repository; nothing outside it (no .., no links out, no .git) and no file the index skipped is read. At most ${MAX_LINES} lines per answer: a longer one is cut (truncated: true) and startLine reads on.`,
      inputSchema: {
        ...repoArg(deps),
        path: z.string().min(1).max(1000).optional().describe('File path relative to the repository root, e.g. src/server/app.ts.'),
        symbol: z.string().min(1).max(500).optional().describe("A symbol's name or qualified name; its body is returned."),
        startLine: z.number().int().min(1).optional().describe('First line (1-based) when reading a file.'),
        endLine: z.number().int().min(1).optional().describe('Last line (inclusive) when reading a file.'),
      },
      outputSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      guarded(async () => {
        if (args.path === undefined && args.symbol === undefined) throw new AppError('VALIDATION', 'Give `path` (a file), `symbol` (a name), or both.');
        if (args.startLine !== undefined && args.endLine !== undefined && args.endLine < args.startLine) throw new AppError('VALIDATION', `endLine ${args.endLine} is before startLine ${args.startLine}.`);
        const { repo, index } = await deps.repos.open(args.repo);
        let view: RepoFileView;
        let symbol: OutlineSymbol | undefined;
        if (args.path !== undefined) {
          view = await confinedFile(deps.engine, repo, args.path, MAX_FILE_BYTES);
          if (args.symbol !== undefined) {
            symbol = matching(view.symbols, args.symbol)[0];
            if (!symbol) throw new AppError('NOT_FOUND', `${view.path} defines no symbol named ${JSON.stringify(args.symbol)}; it defines: ${view.symbols.slice(0, 30).map((s) => s.qualifiedName).join(', ') || 'none'}.`);
          }
        } else ({ view, symbol } = await findDefinition(deps.engine, repo, args.symbol!));
        if (view.content === null) throw new AppError('VALIDATION', `${view.path} has no text to show (${view.skipReason ?? 'unreadable'}).`);
        const all = view.content.split('\n');
        if (all.length > 1 && all[all.length - 1] === '') all.pop();
        const from = symbol ? symbol.startLine : (args.startLine ?? 1);
        if (from > all.length) throw new AppError('VALIDATION', `${view.path} has ${all.length} lines; startLine ${from} is past its end.`);
        const wanted = symbol ? symbol.endLine : Math.min(args.endLine ?? all.length, all.length);
        let to = Math.min(wanted, from + MAX_LINES - 1, all.length);
        let text = all.slice(from - 1, to).join('\n');
        while (text.length > MAX_CHARS && to > from) {
          to = from + Math.max(0, Math.floor((to - from) / 2));
          text = all.slice(from - 1, to).join('\n');
        }
        if (text.length > MAX_CHARS) text = text.slice(0, MAX_CHARS);
        const truncated = to < wanted || view.contentTruncated;
        const citation = cite(view.path, from, to);
        const head = symbol ? `${citation}  ${symbol.kind} ${symbol.qualifiedName}` : citation;
        const tail = truncated ? [`[cut at line ${to} of ${wanted}${view.contentTruncated ? ' (file larger than the read cap)' : ''}: call again with path ${view.path} and startLine ${to + 1}]`] : [];
        return answer([...indexLine(index), head, '```', text, '```', ...tail].join('\n'), {
          repository: repository(repo),
          index,
          path: view.path,
          language: view.language,
          citation,
          ...(symbol ? { symbol: { name: symbol.name, qualifiedName: symbol.qualifiedName, kind: symbol.kind, signature: symbol.signature } } : {}),
          startLine: from,
          endLine: to,
          totalLines: all.length,
          truncated,
          text,
        });
      }),
  );
}
