import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { answer, guarded, indexLine, indexSchema, repoArg, repository, repositorySchema, type ToolDeps } from '../tool';
import { confinedFile } from './readCode';

const outputSchema = {
  repository: repositorySchema,
  index: indexSchema,
  path: z.string(),
  language: z.string(),
  isTest: z.boolean(),
  imports: z.array(z.string()).describe('files this file imports'),
  importedBy: z.array(z.string()).describe('files that import this file'),
  coChanges: z.array(z.object({ path: z.string(), commits: z.number() })).describe('files changed in the same commits, most often first'),
  tests: z.array(z.string()).describe('tests of this file (or, for a test, the files it exercises)'),
  symbols: z.array(z.object({ name: z.string(), kind: z.string(), citation: z.string() })).describe("the file's top-level symbols"),
  recentCommits: z.array(z.object({ sha: z.string(), date: z.string(), author: z.string(), message: z.string() })),
};

/** related_files: what a file is connected to in the index — imports both ways, co-change neighbours, tests, recent commits. */
export function registerRelatedFiles(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    'related_files',
    {
      title: 'Related files',
      description:
        'What an indexed file is connected to: the files it imports, the files that import it, the files that changed together with it in git history (co-change, with how often), its tests, its top-level symbols and its latest commits. ' +
        'Use it before changing a file, to see what else may need to change.',
      inputSchema: {
        ...repoArg(deps),
        path: z.string().min(1).max(1000).describe('File path relative to the repository root.'),
      },
      outputSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      guarded(async () => {
        const { repo, index } = await deps.repos.open(args.repo);
        const view = await confinedFile(deps.engine, repo, args.path, 0);
        const symbols = view.symbols.filter((s) => s.parentId === null).map((s) => ({ name: s.name, kind: s.kind, citation: `${view.path}:${s.startLine}-${s.endLine}` }));
        const coChanges = view.coChanges.map((c) => ({ path: c.path, commits: c.count }));
        const recentCommits = view.commits.map((c) => ({ sha: c.sha, date: c.date, author: c.author, message: c.message.split('\n')[0]! }));
        const list = (title: string, items: string[]) => [`${title} (${items.length}):`, ...(items.length ? items.map((i) => `  ${i}`) : ['  none'])];
        const text = [
          ...indexLine(index),
          `${view.path} (${view.language}${view.isTest ? ', test' : ''})`,
          ...list('Imports', view.imports),
          ...list('Imported by', view.importedBy),
          ...list('Changed together with', coChanges.map((c) => `${c.path}  (${c.commits} commits)`)),
          ...list('Tests', view.tests),
          ...list('Symbols', symbols.map((s) => `${s.kind} ${s.name}  ${s.citation}`)),
          ...list('Recent commits', recentCommits.map((c) => `${c.sha.slice(0, 10)} ${c.date.slice(0, 10)} ${c.message}`)),
        ].join('\n');
        return answer(text, {
          repository: repository(repo),
          index,
          path: view.path,
          language: view.language,
          isTest: view.isTest,
          imports: view.imports,
          importedBy: view.importedBy,
          coChanges,
          tests: view.tests,
          symbols,
          recentCommits,
        });
      }),
  );
}
