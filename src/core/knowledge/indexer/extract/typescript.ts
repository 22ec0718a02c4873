import type { Node } from 'web-tree-sitter';
import { collapse, stripCommentMarkers, type ExtractionBuilder } from './builder';
import { scriptImport, scriptReexport } from './typescriptImports';
import { leadingComment, type LanguageSpec } from './spec';
import type { SymbolKind } from './types';

const COMMON_QUERY = `
(class_declaration) @class
(function_declaration) @function
(generator_function_declaration) @function
(method_definition) @method
(program (lexical_declaration (variable_declarator) @var))
(program (variable_declaration (variable_declarator) @var))
(program (export_statement (lexical_declaration (variable_declarator) @var)))
(program (export_statement (variable_declaration (variable_declarator) @var)))
(import_statement) @import
(export_statement source: (_)) @reexport
(call_expression) @call
(new_expression constructor: (_) @new)
`;

const TS_QUERY = `${COMMON_QUERY}
(abstract_class_declaration) @class
(interface_declaration) @interface
(type_alias_declaration) @type
(enum_declaration) @enum
(internal_module) @namespace
(module) @namespace
`;

const CONSTANT_RE = /^[A-Z][A-Z0-9_]*$/;
const FUNCTION_VALUES = new Set(['arrow_function', 'function_expression', 'function', 'generator_function']);
const REFERENCE_TYPES = new Set(['identifier', 'type_identifier', 'member_expression', 'nested_type_identifier', 'nested_identifier']);

/** The node a declaration's range and JSDoc attach to: the `export` statement when exported. */
function outerOf(node: Node): Node {
  const parent = node.parent;
  return parent && (parent.type === 'export_statement' || parent.type === 'ambient_declaration') ? parent : node;
}

function isExported(outer: Node): boolean {
  return outer.type === 'export_statement';
}

/** The `/** ... *\/` comment directly above `outer`, stripped; null when there is none. */
function jsDocOf(outer: Node): string | null {
  const prev = outer.previousSibling;
  if (!prev || prev.type !== 'comment' || !prev.text.startsWith('/**')) return null;
  if (outer.startPosition.row - prev.endPosition.row > 1) return null;
  return stripCommentMarkers(prev.text) || null;
}

/** The declaration text up to its body, on one line. */
function headerOf(outer: Node, body: Node | null): string {
  const end = body ? body.startIndex : outer.endIndex;
  return collapse(outer.text.slice(0, end - outer.startIndex).replace(/[{;=\s]+$/, ''));
}

function declare(b: ExtractionBuilder, node: Node, kind: SymbolKind): number | null {
  const name = node.childForFieldName('name')?.text;
  if (!name) return null;
  const outer = outerOf(node);
  return b.addSymbol({
    name: name.replace(/^['"]|['"]$/g, ''),
    kind,
    node: outer,
    signature: headerOf(outer, node.childForFieldName('body')),
    docstring: jsDocOf(outer),
    isExported: isExported(outer) || (b.enclosingKindAt(outer.startIndex) === 'namespace' && node.parent?.type === 'export_statement'),
  });
}

/** Adds `inherit` references for every named type in an extends / implements clause. */
function inheritFrom(b: ExtractionBuilder, clause: Node, from: number): void {
  for (const child of clause.namedChildren) {
    if (!child) continue;
    if (child.type === 'extends_clause' || child.type === 'implements_clause') inheritFrom(b, child, from);
    else if (REFERENCE_TYPES.has(child.type)) b.addReference(child.text, 'inherit', child, from);
    else if (child.type === 'generic_type') {
      const name = child.childForFieldName('name');
      if (name) b.addReference(name.text, 'inherit', name, from);
    } else if (child.type === 'call_expression') b.addReference(child.text, 'inherit', child, from);
  }
}

function handleClass(node: Node, b: ExtractionBuilder, kind: SymbolKind): void {
  const index = declare(b, node, kind);
  if (index === null) return;
  for (const child of node.namedChildren) {
    if (child && (child.type === 'class_heritage' || child.type === 'extends_type_clause')) inheritFrom(b, child, index);
  }
}

function handleMethod(node: Node, b: ExtractionBuilder): void {
  const name = node.childForFieldName('name')?.text;
  if (!name) return;
  const parent = b.enclosingAt(node.startIndex);
  const owner = parent === null ? null : b.symbols[parent]!;
  const isPrivate = name.startsWith('#') || node.namedChildren.some((c) => c?.type === 'accessibility_modifier' && c.text === 'private');
  b.addSymbol({
    name,
    kind: owner && (owner.kind === 'class' || owner.kind === 'interface') ? 'method' : 'function',
    node,
    signature: headerOf(node, node.childForFieldName('body')),
    docstring: jsDocOf(node),
    isExported: !!owner?.isExported && !isPrivate,
  });
}

/** Names bound by a declarator's name: an identifier or a destructuring pattern. */
function boundNames(name: Node): Node[] {
  if (name.type === 'identifier' || name.type === 'shorthand_property_identifier_pattern') return [name];
  const out: Node[] = [];
  for (const child of name.namedChildren) {
    if (!child) continue;
    const target = child.type === 'pair_pattern' ? child.childForFieldName('value') : child.type === 'assignment_pattern' ? child.childForFieldName('left') : child;
    if (target) out.push(...boundNames(target));
  }
  return name.type === 'object_pattern' || name.type === 'array_pattern' || name.type === 'pair_pattern' ? out : [];
}

function handleVariable(node: Node, b: ExtractionBuilder): void {
  const nameNode = node.childForFieldName('name');
  if (!nameNode) return;
  const declaration = node.parent!;
  const outer = outerOf(declaration);
  const value = node.childForFieldName('value');
  const isFunction = !!value && FUNCTION_VALUES.has(value.type);
  const isConst = declaration.firstChild?.text === 'const';
  const first = declaration.firstNamedChild?.startIndex === node.startIndex;
  const body = isFunction ? value.childForFieldName('body') : null;
  for (const bound of boundNames(nameNode)) {
    const name = bound.text;
    b.addSymbol({
      name,
      kind: isFunction ? 'function' : isConst && CONSTANT_RE.test(name) ? 'constant' : 'variable',
      node: first ? outer : node,
      signature: collapse(`${declaration.firstChild?.text ?? ''} ${headerOf(node, body)}`, 200),
      docstring: first ? jsDocOf(outer) : null,
      isExported: isExported(outer),
      parent: null,
      qualifier: '',
    });
  }
}

function handleCall(node: Node, b: ExtractionBuilder): void {
  const fn = node.childForFieldName('function');
  if (!fn) return;
  const arg = node.childForFieldName('arguments')?.firstNamedChild;
  const literal = arg && arg.type === 'string' ? arg.text.slice(1, -1) : null;
  if (fn.type === 'import' || (fn.type === 'identifier' && fn.text === 'require' && literal !== null)) {
    if (literal !== null) {
      b.addImport(node, { specifier: literal });
      b.addReference(literal, 'import', node);
    }
    return;
  }
  if (fn.type === 'identifier') b.addReference(fn.text, 'call', fn);
  else if (fn.type === 'member_expression') b.addReference(fn.text, 'attribute_call', fn);
}

function handle(capture: string, node: Node, b: ExtractionBuilder): void {
  switch (capture) {
    case 'class':
      return handleClass(node, b, 'class');
    case 'interface':
      return handleClass(node, b, 'interface');
    case 'type':
      return void declare(b, node, 'type');
    case 'enum':
      return void declare(b, node, 'enum');
    case 'namespace':
      return void declare(b, node, 'namespace');
    case 'function':
      return void declare(b, node, 'function');
    case 'method':
      return handleMethod(node, b);
    case 'var':
      return handleVariable(node, b);
    case 'import':
      return scriptImport(node, b);
    case 'reexport':
      return scriptReexport(node, b);
    case 'call':
      return handleCall(node, b);
    case 'new':
      if (REFERENCE_TYPES.has(node.type)) b.addReference(node.text, 'call', node);
      return;
  }
}

function prepare(root: Node, b: ExtractionBuilder): void {
  const header = leadingComment(root, stripCommentMarkers);
  const first = root.firstChild;
  // A JSDoc block glued to the first declaration documents that declaration, not the file.
  const next = first?.nextSibling;
  if (header && first && next && first.text.startsWith('/**') && next.type !== 'comment' && next.type !== 'import_statement' && next.startPosition.row - first.endPosition.row <= 1) return;
  b.moduleDoc = header;
}

/*
 * The grammars come from their own packages (tree-sitter-typescript 0.23.2, tree-sitter-javascript
 * 0.23.1), not from tree-sitter-wasms (TypeScript 0.20.5, JavaScript 0.20.4): the same extraction
 * (symbols, references, imports, comments) of every file of typeorm, got, eslint, koa and this
 * repository but one, which the new TypeScript grammar parses where the old one did not (a
 * decorator with type arguments, `@ForeignKey<User>(…)`), and a first pass over a repository's
 * files 1.2–2.2× cheaper (their .wasm files are 1.4 MB against 2.3 MB, and 0.36 MB against
 * 0.65 MB: less for V8 to compile and tier up in every thread). An index built with the old
 * grammars is not rebuilt for this (INDEX_VERSION unchanged): a file gets the new grammar's
 * extraction when it changes. docs/indexing.md, bench/README.md.
 */
/** TypeScript (also TSX): declarations, JSDoc, imports, re-exports, calls, inheritance. */
export const typescript: LanguageSpec = { grammar: 'typescript', grammarPackage: 'tree-sitter-typescript', query: TS_QUERY, handle, prepare };
/** TSX: the TypeScript spec over the tsx grammar. */
export const tsx: LanguageSpec = { grammar: 'tsx', grammarPackage: 'tree-sitter-typescript', query: TS_QUERY, handle, prepare };
/** JavaScript and JSX (the javascript grammar parses JSX). */
export const javascript: LanguageSpec = { grammar: 'javascript', grammarPackage: 'tree-sitter-javascript', query: COMMON_QUERY, handle, prepare };
