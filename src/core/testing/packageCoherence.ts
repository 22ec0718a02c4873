/**
 * Test support: what makes a context package usable as an execute prompt's context (gate 5),
 * checked against the repository's files. Returns the problems found ([] when coherent).
 */
import type { ContextPackage } from '../../shared/contract/retrieval';
import { renderMarkdown } from '../features/retrieval/package';

/** Every item is exactly the lines it names (a signature: its first line starts the symbol), files appear once, edges join included files, the markdown heads each item with path:start-end. */
export function contextPackageIsCoherent(pkg: ContextPackage, read: (path: string) => string | null): string[] {
  const problems: string[] = [];
  const paths = pkg.files.map((f) => f.path);
  if (new Set(paths).size !== paths.length) problems.push('a file appears twice');
  const markdown = renderMarkdown(pkg);
  for (const f of pkg.files) {
    const source = read(f.path);
    if (source === null) {
      problems.push(`${f.path} cannot be read`);
      continue;
    }
    const lines = source.split('\n');
    for (const item of f.items) {
      const at = `${f.path}:${item.startLine}-${item.endLine}`;
      if (!markdown.includes(`### ${at}`)) problems.push(`no markdown header for ${at}`);
      if (item.detail === 'signature') {
        if (!item.symbol) problems.push(`${at}: a signature without a symbol`);
        continue;
      }
      const expected = lines.slice(item.startLine - 1, item.endLine).join('\n');
      if (item.text !== expected) problems.push(`${at}: the text is not the lines it names`);
    }
  }
  const included = new Set(paths);
  for (const e of pkg.edges) if (!included.has(e.from) || !included.has(e.to)) problems.push(`edge ${e.from} → ${e.to} leaves the package`);
  return problems;
}
