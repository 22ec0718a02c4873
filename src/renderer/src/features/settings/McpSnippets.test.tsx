import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppInfo } from '../../../../shared/contract';
import { McpSnippets } from './McpSnippets';

const info: AppInfo = {
  name: 'Clean Room',
  version: '9.9.9',
  host: 'test',
  dataDir: '/tmp/x',
  platform: 'linux',
  nodeVersion: '20',
  canPickFolder: false,
  launcher: { command: 'node', args: ['/opt/clean room/bin/cra.js'] },
};

afterEach(cleanup);

describe('Settings → Coding agents (MCP)', () => {
  it("shows each client's snippet with this installation's absolute path filled in", () => {
    render(<McpSnippets info={info} />);
    const cursor = JSON.parse(screen.getByTestId('mcp-snippet-Cursor').querySelector('pre')!.textContent!) as { mcpServers: Record<string, { args: string[] }> };
    expect(cursor.mcpServers['clean-room']!.args).toEqual(['/opt/clean room/bin/cra.js', 'mcp']);
    expect(screen.getByTestId('mcp-snippet-Claude Code').textContent).toContain("claude mcp add clean-room -- node '/opt/clean room/bin/cra.js' mcp");
    for (const client of ['Continue', 'Cline', 'Zed', 'LM Studio']) expect(screen.getByTestId(`mcp-snippet-${client}`).textContent).toContain('/opt/clean room/bin/cra.js');
  });

  it('shows nothing before the engine said where it is', () => {
    const { container } = render(<McpSnippets info={null} />);
    expect(container.textContent).toBe('');
  });
});
