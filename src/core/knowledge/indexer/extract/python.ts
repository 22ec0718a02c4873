import type { Node } from 'web-tree-sitter';
import { collapse, type ExtractionBuilder } from './builder';
import type { LanguageSpec } from './spec';

const QUERY = `
(class_definition) @class
(function_definition) @function
(module (expression_statement (assignment) @assign))
(call function: [(identifier) (attribute)] @call)
(import_statement) @import
(import_from_statement) @import
(future_import_statement) @import
(decorator [(identifier) (attribute)] @decorator)
`;

const CONSTANT_RE = /^_*[A-Z][A-Z0-9_]*$/;

/** Public by Python convention: no leading underscore, or a dunder. */
function isPublicName(name: string): boolean {
  return !name.startsWith('_') || (name.startsWith('__') && name.endsWith('__') && name.length > 4);
}

/** The value of a Python string literal as written: prefix and quotes removed, indentation cleaned like `inspect.cleandoc`. */
export function pythonStringValue(literal: string): string {
  let body = literal.replace(/^[rRuUbBfF]+/, '');
  const quote = body.startsWith('"""') || body.startsWith("'''") ? body.slice(0, 3) : body.slice(0, 1);
  body = body.slice(quote.length, body.endsWith(quote) ? body.length - quote.length : body.length);
  return cleanDoc(body);
}

function cleanDoc(text: string): string {
  const lines = text.replace(/\t/g, '        ').split('\n');
  let indent = Infinity;
  for (const line of lines.slice(1)) {
    const stripped = line.trimStart();
    if (stripped) indent = Math.min(indent, line.length - stripped.length);
  }
  const out = [lines[0]!.trim(), ...lines.slice(1).map((l) => (indent === Infinity ? l : l.slice(indent)).trimEnd())];
  while (out.length > 0 && !out[0]) out.shift();
  while (out.length > 0 && !out[out.length - 1]) out.pop();
  return out.join('\n');
}

/** The docstring of a module / class / function body: its first statement when that is a string. */
function docstringOf(block: Node | null): string | null {
  let first = block?.firstNamedChild ?? null;
  while (first && first.type === 'comment') first = first.nextNamedSibling;
  if (!first || first.type !== 'expression_statement') return null;
  const literal = first.firstNamedChild;
  if (!literal || literal.type !== 'string') return null;
  return pythonStringValue(literal.text);
}

/** The outer node of a definition: the decorated_definition when it has decorators. */
function outerNode(node: Node): Node {
  const parent = node.parent;
  return parent && parent.type === 'decorated_definition' ? parent : node;
}

function signatureOf(node: Node, end: Node | null): string {
  const stop = end ? end.endIndex : node.endIndex;
  return collapse(node.text.slice(0, stop - node.startIndex));
}

function exportedIn(b: ExtractionBuilder, pos: number, name: string): boolean {
  const parent = b.enclosingAt(pos);
  if (parent === null) return isPublicName(name);
  const p = b.symbols[parent]!;
  return p.kind === 'class' && p.isExported && isPublicName(name);
}

function handleClass(node: Node, b: ExtractionBuilder): void {
  const name = node.childForFieldName('name')?.text;
  if (!name) return;
  const supers = node.childForFieldName('superclasses');
  const outer = outerNode(node);
  const index = b.addSymbol({
    name,
    kind: 'class',
    node: outer,
    signature: signatureOf(node, supers ?? node.childForFieldName('name')),
    docstring: docstringOf(node.childForFieldName('body')),
    isExported: exportedIn(b, outer.startIndex, name),
  });
  for (const arg of supers?.namedChildren ?? []) {
    if (arg && (arg.type === 'identifier' || arg.type === 'attribute')) b.addReference(arg.text, 'inherit', arg, index);
  }
}

function handleFunction(node: Node, b: ExtractionBuilder): void {
  const name = node.childForFieldName('name')?.text;
  if (!name) return;
  const outer = outerNode(node);
  const inClass = b.enclosingKindAt(outer.startIndex) === 'class';
  b.addSymbol({
    name,
    kind: inClass ? 'method' : 'function',
    node: outer,
    signature: signatureOf(node, node.childForFieldName('return_type') ?? node.childForFieldName('parameters')),
    docstring: docstringOf(node.childForFieldName('body')),
    isExported: exportedIn(b, outer.startIndex, name),
  });
}

function assignedNames(left: Node | null): Node[] {
  if (!left) return [];
  if (left.type === 'identifier') return [left];
  if (left.type === 'pattern_list' || left.type === 'tuple_pattern') return left.namedChildren.filter((n): n is Node => n?.type === 'identifier');
  return [];
}

function handleAssign(node: Node, b: ExtractionBuilder): void {
  const statement = node.parent ?? node;
  for (const target of assignedNames(node.childForFieldName('left'))) {
    const name = target.text;
    if (b.seen.has(name)) continue;
    b.seen.add(name);
    b.addSymbol({
      name,
      kind: CONSTANT_RE.test(name) ? 'constant' : 'variable',
      node: statement,
      signature: collapse(statement.text, 200),
      docstring: null,
      isExported: isPublicName(name),
      parent: null,
      qualifier: '',
    });
  }
}

function handleImport(node: Node, b: ExtractionBuilder): void {
  if (node.type === 'import_statement') {
    for (const item of node.childrenForFieldName('name')) {
      if (!item) continue;
      const aliased = item.type === 'aliased_import';
      const specifier = (aliased ? item.childForFieldName('name')?.text : item.text) ?? '';
      const alias = aliased ? (item.childForFieldName('alias')?.text ?? null) : null;
      b.addImportWithReference(node, { specifier, alias }, item);
    }
    return;
  }
  let specifier = '__future__';
  let level = 0;
  const moduleNode = node.childForFieldName('module_name');
  if (moduleNode?.type === 'relative_import') {
    const prefix = moduleNode.namedChildren.find((n) => n?.type === 'import_prefix');
    level = prefix ? prefix.text.replace(/[^.]/g, '').length : 0;
    specifier = moduleNode.namedChildren.find((n) => n?.type === 'dotted_name')?.text ?? '';
  } else if (moduleNode) {
    specifier = moduleNode.text;
  }
  const names: string[] = [];
  const localNames: string[] = [];
  if (node.namedChildren.some((n) => n?.type === 'wildcard_import')) {
    names.push('*');
    localNames.push('*');
  }
  for (const item of node.childrenForFieldName('name')) {
    if (!item) continue;
    const aliased = item.type === 'aliased_import';
    const name = (aliased ? item.childForFieldName('name')?.text : item.text) ?? '';
    names.push(name);
    localNames.push((aliased ? item.childForFieldName('alias')?.text : null) ?? name);
  }
  const alias = names.length === 1 && localNames[0] !== names[0] ? (localNames[0] ?? null) : null;
  b.addImport(node, { specifier, names, level, alias, localNames });
  const base = '.'.repeat(level) + specifier;
  for (const name of names) {
    const ref = name === '*' ? base : !base ? name : base.endsWith('.') ? base + name : `${base}.${name}`;
    b.addReference(ref, 'import', node);
  }
}

/** Python: classes, functions, methods, module variables, calls, imports, docstrings, rationale comments. */
export const python: LanguageSpec = {
  grammar: 'python',
  query: QUERY,
  prepare(root, b) {
    b.moduleDoc = docstringOf(root);
  },
  handle(capture, node, b) {
    switch (capture) {
      case 'class':
        return handleClass(node, b);
      case 'function':
        return handleFunction(node, b);
      case 'assign':
        return handleAssign(node, b);
      case 'call':
        return b.addCall(node);
      case 'import':
        return handleImport(node, b);
      case 'decorator':
        return b.addReference(node.text, 'name', node);
    }
  },
};
