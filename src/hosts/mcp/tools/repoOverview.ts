import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { answer, guarded, indexLine, indexSchema, repoArg, repository, repositorySchema, type ToolDeps } from '../tool';

const count = z.record(z.string(), z.number());

const overviewSchema = {
  repository: repositorySchema,
  index: indexSchema,
  git: z.boolean(),
  files: z.number(),
  skippedFiles: z.number(),
  testFiles: z.number(),
  symbols: z.number(),
  commits: z.number(),
  languages: count,
  modules: z.array(z.object({ path: z.string(), files: z.number(), languages: count })),
  mostConnected: z.array(z.object({ path: z.string(), imports: z.number(), importedBy: z.number() })),
  recentCommits: z.array(z.object({ sha: z.string(), date: z.string(), author: z.string(), message: z.string() })),
};

const listSchema = {
  repositories: z.array(
    z.object({ id: z.string(), name: z.string(), path: z.string(), status: z.string(), lastIndexedAt: z.string().nullable(), files: z.number(), languages: count }),
  ),
};

const top = (counts: Record<string, number>, n = 6) =>
  Object.entries(counts)
    .slice(0, n)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');

/** repo_overview (languages, size, top modules, recent activity, index freshness) and list_repositories. */
export function registerOverviewTools(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    'repo_overview',
    {
      title: 'Repository overview',
      description:
        'A repository at a glance, to orient before searching: files, symbols and commits indexed; files per language; the folders with the most files; the most connected files (import hubs); the latest commits; and how current the index is.',
      inputSchema: { ...repoArg(deps) },
      outputSchema: overviewSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      guarded(async () => {
        const { repo, index } = await deps.repos.open(args.repo);
        const o = await deps.engine.request('repos/overview', { repoId: repo.id });
        const recentCommits = o.recentCommits.map((c) => ({ sha: c.sha, date: c.date, author: c.author, message: c.message.split('\n')[0]! }));
        const text = [
          ...indexLine(index),
          `${repo.name} (${repo.path}) · indexed ${index.lastIndexedAt ?? 'never'} (${index.state})`,
          `${o.files} files (${o.testFiles} tests, ${o.skippedFiles} skipped), ${o.symbols} symbols, ${o.commits} commits${repo.git === false ? ' (not a git repository: no history)' : ''}`,
          `Languages: ${top(o.languages)}`,
          'Folders with the most files:',
          ...o.modules.map((m) => `  ${m.path}  ${m.files} files (${top(m.languages, 3)})`),
          ...(o.mostConnected.length ? ['Most connected files:', ...o.mostConnected.map((m) => `  ${m.path}  imports ${m.imports}, imported by ${m.importedBy}`)] : []),
          ...(recentCommits.length ? ['Latest commits:', ...recentCommits.map((c) => `  ${c.sha.slice(0, 10)} ${c.date.slice(0, 10)} ${c.author}: ${c.message}`)] : []),
        ].join('\n');
        return answer(text, {
          repository: repository(repo),
          index,
          git: repo.git !== false,
          files: o.files,
          skippedFiles: o.skippedFiles,
          testFiles: o.testFiles,
          symbols: o.symbols,
          commits: o.commits,
          languages: o.languages,
          modules: o.modules,
          mostConnected: o.mostConnected,
          recentCommits,
        });
      }),
  );

  server.registerTool(
    'list_repositories',
    {
      title: 'List repositories',
      description: `The repositories Clean Room has registered, with their id, folder, status, last index time, file count and languages${deps.repos.fixed !== undefined ? ' (this server answers about the one it was started with)' : '; pass a path or id as `repo` to the other tools'}. A repository that is not listed needs \`cra index PATH\` once.`,
      inputSchema: {},
      outputSchema: listSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () =>
      guarded(async () => {
        const all = await deps.engine.request('repos/list', {});
        const repositories = all.map((r) => ({ id: r.id, name: r.name, path: r.path, status: r.status, lastIndexedAt: r.lastIndexedAt, files: r.stats.files, languages: r.stats.languages }));
        const text = repositories.length
          ? repositories.map((r) => `${r.name}  ${r.path}\n  id ${r.id} · ${r.status} · ${r.files} files · indexed ${r.lastIndexedAt ?? 'never'} · ${top(r.languages, 4)}`).join('\n')
          : 'No repository is indexed yet. Index one with `cra index PATH`.';
        return answer(text, { repositories });
      }),
  );
}
