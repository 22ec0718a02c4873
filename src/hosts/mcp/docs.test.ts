import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { packageRoot } from '../../core/platform/paths';
import { mcpSnippets, PLACEHOLDER_LAUNCHER, type McpSnippet } from '../../shared/mcpSnippets';

const docs = readFileSync(join(packageRoot(), 'docs', 'mcp.md'), 'utf8');

/** The fenced blocks of a markdown text, with their language. */
function fencedBlocks(markdown: string): Array<{ language: string; text: string }> {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)\n```$/gm)].map((m) => ({ language: m[1]!, text: m[2]! }));
}

/** The server entry a snippet declares: {command, args}. */
function serverOf(s: McpSnippet): { command: string; args: string[] } {
  if (s.language === 'yaml') return (parseYaml(s.text) as { mcpServers: Array<{ command: string; args: string[] }> }).mcpServers[0]!;
  const parsed = JSON.parse(s.text) as Record<string, Record<string, { command: string; args: string[] }>>;
  return (parsed.mcpServers ?? parsed.context_servers)!['clean-room']!;
}

describe('MCP configuration snippets (docs/mcp.md and Settings)', () => {
  const placeholder = mcpSnippets(PLACEHOLDER_LAUNCHER);

  it('docs/mcp.md shows every client with exactly the snippet Settings shows', () => {
    const blocks = fencedBlocks(docs);
    expect(placeholder.map((s) => s.client)).toEqual(['Claude Code', 'Cursor', 'Continue', 'Cline', 'Zed', 'LM Studio']);
    for (const s of placeholder) {
      expect(docs).toContain(`### ${s.client}`);
      expect(blocks).toContainEqual({ language: s.language, text: s.text });
    }
  });

  it('every JSON and YAML block of docs/mcp.md parses', () => {
    const blocks = fencedBlocks(docs).filter((b) => b.language === 'json' || b.language === 'yaml');
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    for (const b of blocks) expect(() => (b.language === 'json' ? JSON.parse(b.text) : parseYaml(b.text)), b.text).not.toThrow();
  });

  it('each snippet starts `cra mcp`, also for a path with spaces and quotes, and pins a repository on request', () => {
    const launcher = { command: 'node', args: ["/Users/Ann O'Neil/Clean Room/bin/cra.js"] };
    for (const s of mcpSnippets(launcher, '/work/my repo')) {
      if (s.language === 'shell') {
        expect(s.text).toBe(`claude mcp add clean-room -- node '/Users/Ann O'\\''Neil/Clean Room/bin/cra.js' mcp --repo '/work/my repo'`);
        continue;
      }
      expect(serverOf(s)).toMatchObject({ command: 'node', args: [launcher.args[0], 'mcp', '--repo', '/work/my repo'] });
    }
  });
});
