import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Core } from '../../core/app/createCore';
import { engineClient, type EngineClient } from './engine';
import { FreshnessKeeper } from './freshness';
import { RepoResolver } from './repos';
import type { ToolDeps } from './tool';
import { registerGetContext } from './tools/getContext';
import { registerReadCode } from './tools/readCode';
import { registerRelatedFiles } from './tools/relatedFiles';
import { registerOverviewTools } from './tools/repoOverview';
import { registerSearchCode } from './tools/searchCode';

/** How the server is set up. */
export interface McpOptions {
  /** Serve this folder only; undefined: every indexed repository, named per call. */
  repo?: string;
  /** How long a call waits for an index update before answering from the previous index (ms). */
  waitMs: number;
  version: string;
}

/** The MCP server over a contract client: its tools, and nothing that writes to a repository. */
export function createMcpServer(engine: EngineClient, options: McpOptions): McpServer {
  const server = new McpServer(
    { name: 'clean-room', title: 'Clean Room', version: options.version },
    {
      capabilities: { tools: {} },
      instructions:
        'Clean Room answers from a local index of a git repository: search_code to find code, get_context for a budgeted package of what a task needs, read_code to read a file or a symbol, related_files for what a file is connected to, repo_overview to orient. Answers cite path:line.',
    },
  );
  const freshness = new FreshnessKeeper(engine, options.waitMs);
  const deps: ToolDeps = { engine, repos: new RepoResolver(engine, freshness, options.repo) };
  registerSearchCode(server, deps);
  registerGetContext(server, deps);
  registerReadCode(server, deps);
  registerRelatedFiles(server, deps);
  registerOverviewTools(server, deps);
  return server;
}

/**
 * `cra mcp`: serve over stdin/stdout until the client closes stdin (or a signal), then shut the
 * engine down. stdout carries only the protocol; anything else goes to stderr.
 */
export async function runMcpStdio(core: Core, options: McpOptions): Promise<void> {
  const engine = engineClient(core);
  const server = createMcpServer(engine, options);
  if (options.repo !== undefined) {
    // Said once at start, on stderr; each call answers the same with the command to run.
    await new RepoResolver(engine, new FreshnessKeeper(engine, 0), options.repo).find(undefined).catch((error: unknown) => {
      process.stderr.write(`cra mcp: ${error instanceof Error ? error.message : String(error)}\n`);
    });
  }
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await server.connect(transport);
  process.stderr.write(`cra mcp: serving ${options.repo ?? 'every indexed repository'} over stdio\n`);
  await closed;
  await server.close().catch(() => undefined);
  await core.dispose();
}
