import type { Node } from 'web-tree-sitter';
import { collapse, stripCommentMarkers, type ExtractionBuilder } from './builder';
import { docCommentAbove, headerUpTo, leadingComment, type LanguageSpec } from './spec';
import type { SymbolKind } from './types';

const doc = (node: Node) => docCommentAbove(node, stripCommentMarkers);
const isCapitalised = (name: string) => /^\p{Lu}/u.test(name);

const GO_QUERY = `
(function_declaration) @function
(method_declaration) @method
(type_spec) @type
(source_file (const_declaration (const_spec) @const))
(source_file (var_declaration (var_spec) @var))
(import_spec) @import
(call_expression function: [(identifier) (selector_expression)] @call)
`;

/** The node that carries a Go spec's doc comment: its declaration when it holds only this spec. */
function goOuter(spec: Node): Node {
  const decl = spec.parent;
  return decl && decl.namedChildren.filter((c) => c?.type === spec.type).length === 1 && decl.type !== 'source_file' ? decl : spec;
}

function goHandle(capture: string, node: Node, b: ExtractionBuilder): void {
  switch (capture) {
    case 'function':
    case 'method':
    case 'type': {
      const name = node.childForFieldName('name')?.text;
      if (!name) return;
      const outer = capture === 'type' ? goOuter(node) : node;
      let kind: SymbolKind = capture === 'method' ? 'method' : 'function';
      let qualifier: string | undefined;
      let parent: number | null | undefined;
      if (capture === 'type') {
        const type = node.childForFieldName('type')?.type;
        kind = type === 'struct_type' ? 'struct' : type === 'interface_type' ? 'interface' : 'type';
      } else if (capture === 'method') {
        const receiver = node.childForFieldName('receiver')?.descendantsOfType('type_identifier')[0]?.text;
        if (receiver) {
          qualifier = receiver;
          parent = b.findSymbol(receiver);
        }
      }
      const signature = capture === 'type' ? collapse(outer.text.split('{')[0]!) : headerUpTo(node, node.childForFieldName('body'));
      b.addSymbol({ name, kind, node: outer, signature, docstring: doc(outer), isExported: isCapitalised(name), qualifier, parent });
      return;
    }
    case 'const':
    case 'var':
      for (const nameNode of node.childrenForFieldName('name')) {
        if (!nameNode) continue;
        const outer = goOuter(node);
        b.addSymbol({ name: nameNode.text, kind: capture === 'const' ? 'constant' : 'variable', node: outer, signature: collapse(outer.text, 200), docstring: doc(outer), isExported: isCapitalised(nameNode.text), parent: null, qualifier: '' });
      }
      return;
    case 'import': {
      const specifier = node.childForFieldName('path')?.text.replace(/^["`]|["`]$/g, '') ?? '';
      b.addImportWithReference(node, { specifier, alias: node.childForFieldName('name')?.text ?? null });
      return;
    }
    case 'call':
      return b.addCall(node);
  }
}

/** Go: types (struct/interface), functions, methods qualified by receiver, imports, doc comments. */
export const go: LanguageSpec = {
  grammar: 'go',
  query: GO_QUERY,
  handle: goHandle,
  prepare(root, b) {
    const pkg = root.namedChildren.find((c) => c?.type === 'package_clause');
    b.moduleDoc = pkg ? doc(pkg) : null;
  },
};

const RUST_QUERY = `
(function_item) @function
(function_signature_item) @function
(struct_item) @struct
(enum_item) @enum
(union_item) @struct
(trait_item) @trait
(type_item) @type
(mod_item) @mod
(impl_item) @impl
(source_file (const_item) @const)
(source_file (static_item) @var)
(use_declaration) @use
(call_expression function: [(identifier) (field_expression) (scoped_identifier)] @call)
(macro_invocation macro: (_) @macro)
`;

const RUST_KINDS: Record<string, SymbolKind> = { struct: 'struct', enum: 'enum', trait: 'trait', type: 'type', const: 'constant', var: 'variable' };

function rustPublic(node: Node): boolean {
  return node.namedChildren.some((c) => c?.type === 'visibility_modifier');
}

function rustUse(node: Node, b: ExtractionBuilder): void {
  const arg = node.childForFieldName('argument');
  if (!arg) return;
  let specifier = arg.text;
  let names: string[] = [];
  let alias: string | null = null;
  if (arg.type === 'scoped_use_list') {
    specifier = arg.childForFieldName('path')?.text ?? '';
    names = (arg.childForFieldName('list')?.namedChildren ?? []).map((n) => n?.text ?? '').filter(Boolean);
  } else if (arg.type === 'use_as_clause') {
    specifier = arg.childForFieldName('path')?.text ?? '';
    alias = arg.childForFieldName('alias')?.text ?? null;
  } else if (arg.type === 'use_wildcard') {
    specifier = arg.text.replace(/::\*$/, '');
    names = ['*'];
  }
  b.addImportWithReference(node, { specifier, names, alias });
}

function rustHandle(capture: string, node: Node, b: ExtractionBuilder): void {
  if (capture === 'impl') {
    const type = node.childForFieldName('type');
    const name = (type?.type === 'generic_type' ? type.childForFieldName('type') : type)?.text;
    if (name) b.openQualifier(node, name, b.findSymbol(name));
    const trait = node.childForFieldName('trait');
    const target = name ? b.findSymbol(name) : null;
    if (trait) b.addReference(trait.text, 'inherit', trait, target);
    return;
  }
  if (capture === 'use') return rustUse(node, b);
  if (capture === 'call' || capture === 'macro') {
    const kind = capture === 'macro' || node.type === 'identifier' ? 'call' : 'attribute_call';
    return b.addReference(capture === 'macro' ? `${node.text}!` : node.text, kind, node);
  }
  const name = node.childForFieldName('name')?.text;
  if (!name) return;
  if (capture === 'mod' && !node.childForFieldName('body')) {
    b.addImport(node, { specifier: name, isModule: true });
    return;
  }
  const enclosing = b.enclosingKindAt(node.startIndex);
  const scope = b.scopeAt(node.startIndex);
  const inImpl = scope !== null && (scope.symbol === null || enclosing === 'struct' || enclosing === 'enum' || enclosing === 'trait');
  const kind: SymbolKind = capture === 'function' ? (inImpl ? 'method' : 'function') : capture === 'mod' ? 'namespace' : RUST_KINDS[capture]!;
  const body = node.childForFieldName('body');
  b.addSymbol({ name, kind, node, signature: headerUpTo(node, body), docstring: doc(node), isExported: rustPublic(node) });
}

/** Rust: structs, enums, traits, type aliases, functions, `impl` methods (`Type.method`), `use` and `mod`. */
export const rust: LanguageSpec = {
  grammar: 'rust',
  query: RUST_QUERY,
  handle: rustHandle,
  prepare(root, b) {
    const first = root.firstChild;
    b.moduleDoc = first && /^\/\/!|^\/\*!/.test(first.text) ? leadingComment(root, stripCommentMarkers) : null;
  },
};
