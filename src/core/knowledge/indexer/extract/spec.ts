import type { Node } from 'web-tree-sitter';
import { collapse, nextRationaleHint, type ExtractionBuilder } from './builder';

/** Comment node types of every grammar we parse (JavaScript's `html_comment` is not read). */
const COMMENT_TYPES = new Set(['comment', 'line_comment', 'block_comment']);
/** How many parents to climb from the node at a hint to its comment (grammars that nest doc parts in a comment). */
const MAX_COMMENT_DEPTH = 3;

/**
 * How one grammar is read: ONE query whose captures arrive in document order, and a handler per
 * capture. A single query runs the tree walk inside WASM, which measured much cheaper than
 * walking every node from JavaScript (docs/indexing.md).
 */
export interface LanguageSpec {
  /** The grammar file's name: `tree-sitter-<grammar>.wasm`. */
  grammar: string;
  /**
   * The npm package whose folder holds the grammar file (the grammar's own package); without it,
   * tree-sitter-wasms' `out/`, which has every grammar but older builds of some.
   */
  grammarPackage?: string;
  /**
   * Query source; capture names are what `handle` switches on. It does not capture comments:
   * the extractor finds the few that may be rationale itself (`commentsWithHints`), which costs
   * less than a capture and a handler call per comment.
   */
  query: string;
  /** Called for every capture in document order. */
  handle(capture: string, node: Node, b: ExtractionBuilder): void;
  /** Called once before the captures (module docstring, header comment). */
  prepare?(root: Node, b: ExtractionBuilder): void;
}

/** The first comment of the file when it comes before any code (a header comment), stripped. */
export function leadingComment(root: Node, strip: (text: string) => string): string | null {
  const first = root.firstChild;
  if (!first || !COMMENT_TYPES.has(first.type)) return null;
  const parts: string[] = [];
  let expectedRow = first.startPosition.row;
  for (let c: Node | null = first; c && COMMENT_TYPES.has(c.type); c = c.nextSibling) {
    if (c.startPosition.row > expectedRow + 1) break;
    parts.push(strip(c.text));
    expectedRow = c.endPosition.row;
  }
  const text = parts.join('\n').trim();
  return text || null;
}

/**
 * The comment block directly above a declaration (`///`, `/** *\/`, `//` lines with no blank line
 * in between), stripped of markers; null when there is none.
 */
export function docCommentAbove(node: Node, strip: (text: string) => string): string | null {
  const parts: string[] = [];
  let row = node.startPosition.row;
  for (let c = node.previousNamedSibling; c && COMMENT_TYPES.has(c.type) && row - c.endPosition.row <= 1; c = c.previousNamedSibling) {
    const before = c.previousNamedSibling;
    if (before && before.endPosition.row === c.startPosition.row) break; // a trailing comment of the line above
    parts.unshift(strip(c.text));
    row = c.startPosition.row;
  }
  const text = parts.join('\n').trim();
  return text || null;
}

/** The declaration text up to its body, on one line, without a trailing `{`. */
export function headerUpTo(node: Node, body: Node | null): string {
  const end = body ? body.startIndex : node.endIndex;
  return collapse(node.text.slice(0, end - node.startIndex).replace(/[{;\s]+$/, ''));
}

/**
 * The comments that may be rationale, in document order, each once: those holding a word that
 * `classifyRationale` needs. Scans `source` (the text `root` was parsed from) for those words and
 * looks up the node at each hit instead of visiting every comment node; a hit in code or a string
 * skips the rest of that token.
 */
export function commentsWithHints(root: Node, source: string): Node[] {
  const comments: Node[] = [];
  for (let hint = nextRationaleHint(source, 0); hint; ) {
    const [at, end] = hint;
    const leaf = root.descendantForIndex(at);
    let node = leaf;
    for (let depth = 0; node && !COMMENT_TYPES.has(node.type) && depth < MAX_COMMENT_DEPTH; depth++) node = node.parent;
    let next = end;
    if (node && COMMENT_TYPES.has(node.type)) {
      comments.push(node);
      next = Math.max(end, node.endIndex);
    } else if (leaf && leaf.childCount === 0) {
      next = Math.max(end, leaf.endIndex); // a token holds no comment
    }
    hint = nextRationaleHint(source, next);
  }
  return comments;
}
