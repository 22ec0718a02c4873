import type { Node } from 'web-tree-sitter';
import { stripCommentMarkers, type ExtractionBuilder } from './builder';
import { docCommentAbove, headerUpTo, leadingComment, type LanguageSpec } from './spec';
import type { SymbolKind } from './types';

const doc = (node: Node) => docCommentAbove(node, stripCommentMarkers);

const C_QUERY = `
(function_definition) @function
(struct_specifier name: (_) body: (_)) @struct
(union_specifier name: (_) body: (_)) @struct
(enum_specifier name: (_) body: (_)) @enum
(type_definition) @typedef
(preproc_include) @include
(call_expression function: [(identifier) (field_expression)] @call)
`;

const CPP_QUERY = `${C_QUERY}
(class_specifier name: (_) body: (_)) @class
(namespace_definition) @namespace
(call_expression function: (qualified_identifier) @call)
`;

const KINDS: Record<string, SymbolKind> = { struct: 'struct', enum: 'enum', class: 'class', namespace: 'namespace' };
const DECLARATOR_WRAPPERS = new Set(['pointer_declarator', 'reference_declarator', 'parenthesized_declarator', 'function_declarator']);

/** The name node of a function definition's declarator (through pointers and references). */
function declaratorName(node: Node | null): Node | null {
  let current = node;
  while (current && DECLARATOR_WRAPPERS.has(current.type)) current = current.childForFieldName('declarator');
  return current;
}

function isStatic(node: Node): boolean {
  return node.namedChildren.some((c) => c?.type === 'storage_class_specifier' && c.text === 'static');
}

function handleFunction(node: Node, b: ExtractionBuilder): void {
  const nameNode = declaratorName(node.childForFieldName('declarator'));
  if (!nameNode) return;
  let name = nameNode.text;
  let qualifier: string | undefined;
  let parent: number | null | undefined;
  if (nameNode.type === 'qualified_identifier') {
    const parts = name.split('::');
    name = parts.pop()!;
    qualifier = parts.join('.');
    parent = b.findSymbol(qualifier);
  }
  const enclosing = b.enclosingKindAt(node.startIndex);
  const isMethod = qualifier !== undefined || enclosing === 'class' || enclosing === 'struct';
  b.addSymbol({
    name,
    kind: isMethod ? 'method' : 'function',
    node,
    signature: headerUpTo(node, node.childForFieldName('body')),
    docstring: doc(node),
    isExported: !isStatic(node),
    qualifier,
    parent,
  });
}

function addTypedef(node: Node, b: ExtractionBuilder, parent: number | null = b.enclosingAt(node.startIndex)): void {
  const name = declaratorName(node.childForFieldName('declarator'));
  if (!name || name.type !== 'type_identifier') return;
  const qualifier = parent === null ? '' : b.symbols[parent]!.qualifiedName;
  b.addSymbol({ name: name.text, kind: 'type', node, signature: headerUpTo(node, null), docstring: doc(node), isExported: true, parent, qualifier });
}

function handle(capture: string, node: Node, b: ExtractionBuilder): void {
  switch (capture) {
    case 'function':
      return handleFunction(node, b);
    case 'struct':
    case 'enum':
    case 'class':
    case 'namespace': {
      const name = node.childForFieldName('name')?.text;
      if (!name) return;
      const outer = node.parent?.type === 'type_definition' ? node.parent : node;
      const index = b.addSymbol({ name, kind: KINDS[capture]!, node: outer, signature: headerUpTo(node, node.childForFieldName('body')), docstring: doc(outer), isExported: true });
      const bases = node.namedChildren.find((c) => c?.type === 'base_class_clause');
      for (const base of bases?.namedChildren ?? []) {
        if (base && base.type !== 'access_specifier') b.addReference(base.text, 'inherit', base, index);
      }
      if (outer !== node) addTypedef(outer, b, b.symbols[index]!.parent);
      return;
    }
    case 'typedef': {
      // `typedef struct s {...} s_t;` is recorded by the struct's capture, after the struct.
      const type = node.childForFieldName('type');
      if (!type?.childForFieldName('body') || !type.childForFieldName('name')) addTypedef(node, b);
      return;
    }
    case 'include': {
      const path = node.childForFieldName('path');
      if (!path) return;
      const isSystem = path.type === 'system_lib_string';
      const specifier = path.text.replace(/^["<]|[">]$/g, '');
      b.addImportWithReference(node, { specifier, isSystem });
      return;
    }
    case 'call':
      return b.addCall(node);
  }
}

function prepare(root: Node, b: ExtractionBuilder): void {
  b.moduleDoc = leadingComment(root, stripCommentMarkers);
}

/** C: functions, structs, unions, enums, typedefs, includes. */
export const c: LanguageSpec = { grammar: 'c', query: C_QUERY, handle, prepare };
/** C++: C plus classes, namespaces, methods (in-class and `Type::method`), qualified calls. */
export const cpp: LanguageSpec = { grammar: 'cpp', query: CPP_QUERY, handle, prepare };
