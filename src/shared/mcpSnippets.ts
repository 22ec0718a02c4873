/**
 * The configuration that connects a coding agent to `cra mcp`, per client: docs/mcp.md shows these
 * snippets with a placeholder path (a test checks the two agree and that each parses), and the
 * Settings page shows them with this installation's absolute path (app/info `launcher`).
 */

/** How to start the CLI: a program and its leading arguments. */
export interface Launcher {
  command: string;
  args: string[];
}

/** One client's snippet. */
export interface McpSnippet {
  client: string;
  /** Where it goes. */
  where: string;
  language: 'json' | 'yaml' | 'shell';
  text: string;
}

/** The launcher docs/mcp.md shows. */
export const PLACEHOLDER_LAUNCHER: Launcher = { command: 'node', args: ['/path/to/clean-room/bin/cra.js'] };

/** The snippets for a launcher; `repo` pins the server to one repository (`--repo`). */
export function mcpSnippets(launcher: Launcher, repo?: string): McpSnippet[] {
  const args = [...launcher.args, 'mcp', ...(repo ? ['--repo', repo] : [])];
  const server = { command: launcher.command, args };
  const json = (value: unknown) => JSON.stringify(value, null, 2);
  const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  return [
    { client: 'Claude Code', where: 'run once in a terminal (or put the Cursor JSON below in .mcp.json at the project root)', language: 'shell', text: `claude mcp add clean-room -- ${[launcher.command, ...args].map(quote).join(' ')}` },
    { client: 'Cursor', where: '~/.cursor/mcp.json, or .cursor/mcp.json in the project', language: 'json', text: json({ mcpServers: { 'clean-room': server } }) },
    {
      client: 'Continue',
      where: '.continue/mcpServers/clean-room.yaml in the workspace (agent mode)',
      language: 'yaml',
      text: ['name: Clean Room', 'version: 0.0.1', 'schema: v1', 'mcpServers:', '  - name: clean-room', `    command: ${JSON.stringify(server.command)}`, '    args:', ...args.map((a) => `      - ${JSON.stringify(a)}`)].join('\n'),
    },
    { client: 'Cline', where: 'cline_mcp_settings.json (MCP Servers → Configure → Configure MCP Servers)', language: 'json', text: json({ mcpServers: { 'clean-room': { ...server, disabled: false, autoApprove: [] } } }) },
    { client: 'Zed', where: 'settings.json (zed: open settings)', language: 'json', text: json({ context_servers: { 'clean-room': { ...server, env: {} } } }) },
    { client: 'LM Studio', where: 'mcp.json (Program tab → Install → Edit mcp.json)', language: 'json', text: json({ mcpServers: { 'clean-room': server } }) },
  ];
}
