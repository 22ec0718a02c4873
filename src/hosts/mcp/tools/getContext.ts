import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { AppError, type ContextPackage, type RepoInfo, type RunResult } from '../../../shared/contract';
import { formatReasons } from '../../../shared/contract/reasons';
import { modelFreePackage } from '../contextFallback';
import type { EngineClient } from '../engine';
import { answer, cite, guarded, indexLine, indexSchema, reasonsSchema, repoArg, repository, repositorySchema, type ToolDeps } from '../tool';

const outputSchema = {
  repository: repositorySchema,
  index: indexSchema,
  mode: z.enum(['pipeline', 'model-free']).describe('pipeline: files and symbols chosen by binary judgments of the configured local model; model-free: the search ranking within the budget'),
  note: z.string().optional(),
  budget: z.object({ tokens: z.number(), used: z.number() }),
  judgments: z.number().describe('model judgments made (0 when model-free)'),
  files: z.array(
    z.object({
      path: z.string(),
      tier: z.number().describe('how the file came in: 0 given, 1 matched the task (named, search hit), 2 imports/importers, 3 co-change, 4 metadata'),
      pYes: z.number().optional().describe("the judge's P(yes) that the file is relevant"),
      reasons: reasonsSchema,
      why: z.string(),
      items: z.array(
        z.object({
          citation: z.string(),
          symbol: z.string().optional(),
          role: z.string().optional(),
          detail: z.enum(['full', 'signature', 'file']),
          tokens: z.number(),
          pYes: z.number().optional(),
          why: z.string(),
          text: z.string(),
        }),
      ),
    }),
  ),
  dropped: z.array(z.object({ path: z.string(), symbol: z.string().optional(), why: z.string() })),
};

/** The package of a retrieve run (retrieval/run): the run's result, or its failure thrown. */
async function pipelinePackage(engine: EngineClient, repo: RepoInfo, task: string, budget: number): Promise<{ pkg: ContextPackage; judgments: number }> {
  const { run } = await engine.request('retrieval/run', { repoId: repo.id, task, budget: { tokens: budget } });
  const result = (await engine.wait(run.runId)) as RunResult<'retrieve'>;
  return { pkg: result.package, judgments: result.summary.judgments };
}

/** get_context: a token-budgeted context package for a task, with tiers, reasons and P(yes). */
export function registerGetContext(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    'get_context',
    {
      title: 'Get context for a task',
      description:
        'Build a token-budgeted context package for a coding task: the files and symbols (full source or signature) that matter, each with why it is there, its tier and, when a local judge model is configured in Clean Room, the P(yes) of its relevance judgment. ' +
        'Without a configured model (or with useModels false) the package is model-free: the best search hits with their best symbols, until the budget is spent. ' +
        'With models it can take a minute or more. Every item cites path:start-end.',
      inputSchema: {
        ...repoArg(deps),
        task: z.string().trim().min(1).max(8000).describe('The task in words, e.g. "make the retry delay configurable"; naming files or symbols helps.'),
        budgetTokens: z.number().int().min(200).max(200_000).default(8000).describe('Most tokens the package may take (default 8000).'),
        useModels: z.boolean().default(true).describe('Use the configured judge model (slower, judged); false: model-free, fast.'),
      },
      outputSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      guarded(async () => {
        const { repo, index } = await deps.repos.open(args.repo);
        let mode: 'pipeline' | 'model-free' = 'model-free';
        let note: string | undefined;
        let built: { pkg: ContextPackage; judgments: number } | undefined;
        if (args.useModels) {
          try {
            built = await pipelinePackage(deps.engine, repo, args.task, args.budgetTokens);
            mode = 'pipeline';
          } catch (error) {
            if (!(error instanceof AppError) || !['CONFIG_MISSING', 'OLLAMA_UNREACHABLE', 'OLLAMA_NOT_INSTALLED', 'MODEL_NOT_FOUND'].includes(error.code)) throw error;
            note = `Model-free package: the retrieval pipeline could not run (${error.message}).`;
          }
        }
        built ??= { pkg: await modelFreePackage(deps.engine, repo, args.task, args.budgetTokens), judgments: 0 };
        const { pkg, judgments } = built;
        const files = pkg.files.map((f) => ({
          path: f.path,
          tier: f.tier,
          ...(f.pYes !== undefined ? { pYes: f.pYes } : {}),
          reasons: f.reasons,
          why: formatReasons(f.reasons),
          items: f.items.map((i) => ({
            citation: cite(f.path, i.startLine, i.endLine),
            ...(i.symbol ? { symbol: i.symbol.qualifiedName, role: i.symbol.role } : {}),
            detail: i.detail,
            tokens: i.tokens,
            ...(i.pYes !== undefined ? { pYes: i.pYes } : {}),
            why: formatReasons(i.reasons),
            text: i.text,
          })),
        }));
        const dropped = pkg.dropped.map((d) => ({ path: d.path, ...(d.symbol ? { symbol: d.symbol } : {}), why: formatReasons(d.reasons) }));
        const p = (v: number | undefined) => (v !== undefined ? ` · P(yes) ${v.toFixed(2)}` : '');
        const text = [
          ...indexLine(index),
          ...(note ? [`Note: ${note}`] : []),
          `Context for: ${args.task.slice(0, 200)}`,
          `${mode} · ${files.length} files · ${pkg.budget.used} of ${pkg.budget.tokens} tokens${judgments ? ` · ${judgments} judgments` : ''}`,
          ...files.flatMap((f) => [
            '',
            `## ${f.path} (tier ${f.tier}${p(f.pYes)}) — ${f.why}`,
            ...f.items.flatMap((i) => [`${i.citation}${i.symbol ? `  ${i.symbol} (${i.role}, ${i.detail})` : ''}${p(i.pYes)}${i.why ? ` — ${i.why}` : ''}`, '```', i.text, '```']),
          ]),
          ...(dropped.length ? ['', 'Left out:', ...dropped.map((d) => `  ${d.path}${d.symbol ? ` ${d.symbol}` : ''} — ${d.why}`)] : []),
        ].join('\n');
        return answer(text, {
          repository: repository(repo),
          index,
          mode,
          ...(note ? { note } : {}),
          budget: { tokens: pkg.budget.tokens, used: pkg.budget.used },
          judgments,
          files,
          dropped,
        });
      }),
  );
}
