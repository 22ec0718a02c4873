import type { Node } from 'web-tree-sitter';
import type { ExtractionBuilder } from './builder';

function stringValue(node: Node | null): string | null {
  if (!node) return null;
  const text = node.text;
  return text.length >= 2 ? text.slice(1, -1) : null;
}

interface Bindings {
  names: string[];
  localNames: string[];
  alias: string | null;
}

/** Names bound by an import clause: default → 'default', `* as ns` → '*', `{a as b}` → 'a' (local 'b'). */
function clauseBindings(clause: Node | null | undefined): Bindings {
  const out: Bindings = { names: [], localNames: [], alias: null };
  for (const part of clause?.namedChildren ?? []) {
    if (!part) continue;
    if (part.type === 'identifier') {
      out.names.push('default');
      out.localNames.push(part.text);
    } else if (part.type === 'namespace_import' || part.type === 'namespace_export') {
      const local = part.namedChildren.find((n) => n?.type === 'identifier')?.text ?? '*';
      out.names.push('*');
      out.localNames.push(local);
      out.alias = local;
    } else if (part.type === 'named_imports' || part.type === 'export_clause') {
      for (const spec of part.namedChildren) {
        if (!spec || (spec.type !== 'import_specifier' && spec.type !== 'export_specifier')) continue;
        const name = spec.childForFieldName('name')?.text ?? spec.text;
        out.names.push(name);
        out.localNames.push(spec.childForFieldName('alias')?.text ?? name);
      }
    }
  }
  return out;
}

/** `import ... from 'x'`, `import 'x'`, `import type ...`, `import x = require('x')`. */
export function scriptImport(node: Node, b: ExtractionBuilder): void {
  let source = node.childForFieldName('source');
  const clause = node.namedChildren.find((n) => n?.type === 'import_clause' || n?.type === 'import_require_clause');
  if (!source && clause?.type === 'import_require_clause') source = clause.childForFieldName('source');
  const specifier = stringValue(source);
  if (specifier === null) return;
  const bindings =
    clause?.type === 'import_require_clause'
      ? { names: ['*'], localNames: [clause.firstNamedChild?.text ?? '*'], alias: clause.firstNamedChild?.text ?? null }
      : clauseBindings(clause);
  b.addImportWithReference(node, { specifier, ...bindings });
}

/** `export {a} from 'x'`, `export * from 'x'`, `export * as ns from 'x'`: re-export edges. */
export function scriptReexport(node: Node, b: ExtractionBuilder): void {
  const specifier = stringValue(node.childForFieldName('source'));
  if (specifier === null) return;
  const bindings = clauseBindings(node);
  if (bindings.names.length === 0) {
    bindings.names.push('*');
    bindings.localNames.push('*');
  }
  b.addImportWithReference(node, { specifier, ...bindings, isReexport: true });
}
