import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { join } from 'node:path';
import { packageRoot } from '../../../core/platform/paths';

/** A connected SDK client and the stderr of the `cra mcp` process it spawned. */
export interface McpSession {
  client: Client;
  stderr: () => string;
  /** Call a tool and return its result (content, structuredContent, isError). */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/**
 * Test and bench support: spawn the real `cra --data-dir DIR mcp …args` (bin/cra.js, as an agent
 * would) and connect the MCP SDK's own client to it over stdio.
 */
export async function connectCraMcp(dataDir: string, args: readonly string[] = []): Promise<McpSession> {
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => typeof e[1] === 'string'));
  const transport = new StdioClientTransport({ command: process.execPath, args: [join(packageRoot(), 'bin', 'cra.js'), '--data-dir', dataDir, 'mcp', ...args], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'cra-test', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    call: async (name, callArgs = {}) => (await client.callTool({ name, arguments: callArgs }, undefined, { timeout: 120_000 })) as CallToolResult,
    close: () => client.close(),
  };
}
