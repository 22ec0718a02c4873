import type { AppInfo } from '../../../../shared/contract';
import { mcpSnippets } from '../../../../shared/mcpSnippets';

/** Settings → Coding agents: the `cra mcp` configuration of each client, with this installation's path (the same snippets as docs/mcp.md). */
export function McpSnippets({ info }: { info: AppInfo | null | undefined }) {
  if (!info?.launcher) return null;
  return (
    <section className="panel settings-section" aria-label="Coding agents (MCP)">
      <h2 className="section-title">Coding agents (MCP)</h2>
      <p className="muted small">
        Connect Claude Code, Cursor, Continue, Cline, Zed or LM Studio to your indexed repositories with <code>cra mcp</code> (search, budgeted context, code and related files; read-only). Add{' '}
        <code>--repo PATH</code> after <code>mcp</code> to serve one repository.
      </p>
      {mcpSnippets(info.launcher).map((s) => (
        <div key={s.client} data-testid={`mcp-snippet-${s.client}`}>
          <h3 className="small">
            {s.client} <span className="muted">· {s.where}</span>
          </h3>
          <pre className="mono small">{s.text}</pre>
        </div>
      ))}
    </section>
  );
}
