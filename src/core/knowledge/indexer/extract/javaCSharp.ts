import type { Node } from 'web-tree-sitter';
import { stripCommentMarkers, type ExtractionBuilder } from './builder';
import { docCommentAbove, headerUpTo, leadingComment, type LanguageSpec } from './spec';
import type { SymbolKind } from './types';

const doc = (node: Node) => docCommentAbove(node, (text) => stripCommentMarkers(text).replace(/<\/?summary>/g, '').trim());

const JAVA_QUERY = `
(class_declaration) @class
(interface_declaration) @interface
(enum_declaration) @enum
(record_declaration) @class
(annotation_type_declaration) @interface
(method_declaration) @method
(constructor_declaration) @method
(import_declaration) @import
(method_invocation) @call
(object_creation_expression type: (_) @new)
`;

const CSHARP_QUERY = `
(class_declaration) @class
(interface_declaration) @interface
(enum_declaration) @enum
(struct_declaration) @struct
(record_declaration) @class
(namespace_declaration) @namespace
(method_declaration) @method
(constructor_declaration) @method
(using_directive) @import
(invocation_expression function: [(identifier) (member_access_expression)] @call)
(object_creation_expression type: (_) @new)
`;

const KINDS: Record<string, SymbolKind> = { class: 'class', interface: 'interface', enum: 'enum', struct: 'struct', namespace: 'namespace', method: 'method' };

/** Public unless marked private (Java package-private counts as visible inside the repository). */
function isVisible(node: Node): boolean {
  const modifiers = node.namedChildren.filter((c) => c?.type === 'modifiers' || c?.type === 'modifier');
  return !modifiers.some((m) => /\bprivate\b/.test(m!.text));
}

/** Type names in `extends` / `implements` / C# base lists. */
function baseTypes(node: Node): Node[] {
  const out: Node[] = [];
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (['superclass', 'super_interfaces', 'extends_interfaces', 'base_list', 'type_list', 'interface_type_list'].includes(child.type)) {
      for (const t of child.namedChildren) {
        if (!t) continue;
        if (t.type === 'type_list' || t.type === 'interface_type_list') out.push(...baseTypes(child));
        else out.push(t.type === 'generic_type' ? (t.namedChildren[0] ?? t) : t);
      }
    }
  }
  return out.filter((n) => n.type !== 'type_list' && n.type !== 'interface_type_list');
}

function declare(capture: string, node: Node, b: ExtractionBuilder): void {
  const name = node.childForFieldName('name')?.text;
  if (!name) return;
  const body = node.childForFieldName('body');
  const index = b.addSymbol({
    name,
    kind: KINDS[capture]!,
    node,
    signature: headerUpTo(node, body),
    docstring: doc(node),
    isExported: isVisible(node),
  });
  if (capture !== 'method' && capture !== 'namespace') {
    for (const base of baseTypes(node)) b.addReference(base.text, 'inherit', base, index);
  }
}

function javaImport(node: Node, b: ExtractionBuilder): void {
  const path = node.namedChildren.find((c) => c?.type === 'scoped_identifier' || c?.type === 'identifier');
  if (!path) return;
  const star = node.namedChildren.some((c) => c?.type === 'asterisk');
  b.addImport(node, { specifier: path.text, names: star ? ['*'] : [] });
  b.addReference(path.text, 'import', node);
}

function javaHandle(capture: string, node: Node, b: ExtractionBuilder): void {
  switch (capture) {
    case 'import':
      return javaImport(node, b);
    case 'call': {
      const object = node.childForFieldName('object');
      const name = node.childForFieldName('name')?.text ?? '';
      return b.addReference(object ? `${object.text}.${name}` : name, object ? 'attribute_call' : 'call', node);
    }
    case 'new':
      return b.addReference(node.text, 'call', node);
    default:
      return declare(capture, node, b);
  }
}

function csharpHandle(capture: string, node: Node, b: ExtractionBuilder): void {
  switch (capture) {
    case 'import': {
      const name = node.namedChildren.find((c) => c?.type === 'qualified_name' || c?.type === 'identifier');
      if (!name) return;
      const alias = node.childForFieldName('alias')?.text ?? null;
      const specifier = alias ? node.namedChildren.filter((c) => c?.type === 'qualified_name' || c?.type === 'identifier').pop()!.text : name.text;
      b.addImportWithReference(node, { specifier, alias });
      return;
    }
    case 'call':
      return b.addCall(node);
    case 'new':
      return b.addReference(node.text, 'call', node);
    default:
      return declare(capture, node, b);
  }
}

function prepare(root: Node, b: ExtractionBuilder): void {
  b.moduleDoc = leadingComment(root, stripCommentMarkers);
}

/** Java: classes, interfaces, enums, records, methods and constructors, imports, Javadoc. */
export const java: LanguageSpec = { grammar: 'java', query: JAVA_QUERY, handle: javaHandle, prepare };
/** C#: namespaces, classes, structs, interfaces, enums, records, methods, usings, `///` docs. */
export const csharp: LanguageSpec = { grammar: 'c_sharp', query: CSHARP_QUERY, handle: csharpHandle, prepare };
