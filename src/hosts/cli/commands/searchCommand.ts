import { InvalidArgumentError } from 'commander';
import type { SearchMode } from '../../../shared/contract';
import { SEARCH_MODES } from '../../../shared/vocabulary';
import { openRepo, type CommandModule } from '../context';
import type * as Output from './searchOutput';


function parseLimit(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 200) throw new InvalidArgumentError(`"${value}" is not a limit; use a whole number from 1 to 200.`);
  return n;
}

/** The command's implementation, loaded when it runs (see context.ts). */
function output(): typeof Output {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on action, not at start
  return require('./searchOutput') as typeof Output;
}

export const registerSearch: CommandModule = (program, ctx) => {
  program
    .command('search')
    .description('rank the files of an indexed repository for a query (BM25 + graph signals, + vectors when embedded)')
    .argument('<query>', 'words or identifiers to look for')
    .option('--repo <path>', 'the indexed repository', '.')
    .option('--limit <n>', 'how many files to list (default: [retrieval] top_k of the config, 20)', parseLimit)
    // The mode is the contract's to check: an unknown one is refused naming the allowed ones.
    .option('--mode <mode>', `ranking: ${SEARCH_MODES.join(' | ')}`, 'auto')
    .option('--json', 'print {results:[{path, score, symbols, lines, bestLine, why:[{kind, detail}]}], mode, tookMs, terms, vectorCoverage?, note?}')
    .action(async (query: string, opts: { repo: string; limit?: number; mode: SearchMode; json?: boolean }) => {
      const { formatTable } = output();
      // A broken config fails here naming file:line and key; the app falls back to defaults.
      const { engine, repo } = await openRepo(ctx, opts.repo, { config: true });
      try {
        const response = await engine.request('search/query', { repoId: repo.id, query, limit: opts.limit, mode: opts.mode });
        if (opts.json) process.stdout.write(`${JSON.stringify(response, null, 2)}\n`);
        else {
          process.stdout.write(formatTable(response.results, `${response.results.length} files · ${response.mode} · ${response.tookMs} ms`));
          // No or partial vectors, or hybrid that fell back to keyword: on stderr, so the listing stays parseable.
          if (response.note) process.stderr.write(`Note: ${response.note}\n`);
        }
      } finally {
        await engine.dispose();
      }
    });

  program
    .command('embed')
    .description('compute vectors for the chunks of an indexed repository that have none yet (embedded model, no server)')
    .argument('[path]', 'the indexed repository', '.')
    .option('--json', 'print the summary as JSON')
    .action(async (path: string, opts: { json?: boolean }) => {
      const { runEmbedding } = output();
      await runEmbedding(ctx, await openRepo(ctx, path), opts.json === true);
    });
};
