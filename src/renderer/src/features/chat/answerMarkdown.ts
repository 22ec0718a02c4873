import DOMPurify from 'dompurify';
import { Marked, type TokenizerAndRendererExtension, type Tokens } from 'marked';
import { citationAt, citationParts, type ChatCitation, type ChatSource, type CitationRef } from '../../../../shared/contract/chat';

/** How the page shows a citation: a link (`linked`), flagged (`unverified`), or not yet known while the answer streams. */
export type CitationView = 'linked' | 'unverified' | 'pending';

/** What the answer's citations are checked against. */
export interface CitationContext {
  /** The engine's checks, once the answer is stored (null while it streams). */
  citations: readonly ChatCitation[] | null;
  sources: readonly ChatSource[] | null;
  isStreaming: boolean;
}

/**
 * How to show one citation: the engine's check when there is one (`source` and `indexed` link,
 * `unverified` is flagged); while streaming, a citation of a source's file links at once and the
 * rest wait for the check; a finished answer without a check for it is flagged.
 */
export function citationView(text: string, path: string, context: CitationContext): CitationView {
  const checked = context.citations?.find((c) => c.text === text);
  if (checked) return checked.status === 'unverified' ? 'unverified' : 'linked';
  if (context.sources?.some((s) => s.path === path)) return 'linked';
  return context.isStreaming ? 'pending' : 'unverified';
}

/** Most characters of an answer the page shows; a longer one (stored before the engine capped answers) is cut, with a note. */
export const SHOWN_MAX_CHARS = 256 * 1024;
/** Longest answer rendered as markdown: the markdown parser is slower than linear on some input; a longer one is shown as text. */
export const MARKDOWN_MAX_CHARS = 64 * 1024;
/** Deepest nesting (quotes, list items, indentation) rendered as markdown: the parser recurses per level. */
export const MARKDOWN_MAX_DEPTH = 32;

interface CitationToken extends Tokens.Generic {
  type: 'citation';
  raw: string;
  path: string;
  startLine: number;
  endLine: number;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A marked instance whose inline `[path:line]` citations become buttons or flagged spans. */
function markedFor(context: CitationContext): Marked {
  const citation: TokenizerAndRendererExtension = {
    name: 'citation',
    level: 'inline',
    start: (src) => src.indexOf('['),
    tokenizer(src) {
      // Only the citation at the start: scanning the rest at every `[` made long answers quadratic.
      const first = citationAt(src);
      if (!first) return undefined;
      return { type: 'citation', raw: first.text, path: first.path, startLine: first.startLine, endLine: first.endLine } satisfies CitationToken;
    },
    renderer(token) {
      const t = token as CitationToken;
      return citationHtml({ text: t.raw, path: t.path, startLine: t.startLine, endLine: t.endLine }, context);
    },
  };
  return new Marked({ gfm: true, breaks: false, async: false, extensions: [citation] });
}

/** A citation as a button that opens the file, or a flagged span. */
function citationHtml(t: CitationRef, context: CitationContext): string {
  const text = escapeHtml(t.text);
  const view = citationView(t.text, t.path, context);
  if (view === 'unverified') return `<span class="chat-citation unverified" title="Not in the index: the model cited a file or lines that do not exist">${text}</span>`;
  if (view === 'pending') return `<span class="chat-citation pending" title="Checking this citation…">${text}</span>`;
  const data = `data-path="${escapeHtml(t.path)}" data-line="${t.startLine}" data-end-line="${t.endLine}"`;
  return `<button type="button" class="link chat-citation" ${data} title="Open ${escapeHtml(t.path)} at line ${t.startLine}">${text}</button>`;
}

/**
 * How deeply the markdown of `text` nests: per line outside code fences, its `>` quotes and list
 * markers plus a level per 4 columns of indentation; the deepest line. One pass, no recursion.
 */
export function markdownDepth(text: string): number {
  let deepest = 0;
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const opener = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (opener !== undefined && opener[0] === fence[0] && opener.length >= fence.length) fence = undefined;
      continue;
    }
    if (opener !== undefined) {
      fence = opener;
      continue;
    }
    let depth = 0;
    let columns = 0;
    for (let i = 0; i < line.length; ) {
      const c = line[i]!;
      if (c === ' ' || c === '\t') {
        columns += c === '\t' ? 4 : 1;
        i++;
      } else if (c === '>') {
        depth++;
        i++;
      } else {
        const marker = /^(?:[-*+]|\d{1,9}[.)])(?=[ \t]|$)/.exec(line.slice(i, i + 11))?.[0];
        if (!marker) break;
        depth++;
        i += marker.length;
      }
    }
    deepest = Math.max(deepest, depth + Math.floor(columns / 4));
  }
  return deepest;
}

/** An answer as escaped text keeping its lines, its citations linked: one loop over the citations, nothing nested. */
function plainHtml(answer: string, context: CitationContext): string {
  const out: string[] = [];
  for (const part of citationParts(answer)) out.push(typeof part === 'string' ? escapeHtml(part) : citationHtml(part, context));
  return `<div class="chat-answer-plain">${out.join('')}</div>`;
}

const kb = (chars: number) => `${Math.round(chars / 1024)} KB`;

/**
 * An answer as sanitized HTML: markdown (paragraphs, lists, code), its `[path:line]` citations as
 * buttons carrying `data-path`/`data-line`/`data-end-line` (or flagged spans), everything the
 * model wrote passed through DOMPurify (no scripts, handlers or `javascript:` links). Raw HTML in
 * the answer is shown as text, not rendered. An answer too long or too deeply nested for the
 * markdown parser (which recurses per level and was slower than linear on some input: an 8 MB
 * answer overflowed the stack and the page could not open its conversation again) is shown as
 * text with its citations linked, with a note; past {@link SHOWN_MAX_CHARS} it is cut, with a note.
 */
export function answerHtml(answer: string, context: CitationContext): string {
  const shown = answer.length > SHOWN_MAX_CHARS ? answer.slice(0, SHOWN_MAX_CHARS) : answer;
  const notes: string[] = [];
  if (shown !== answer) notes.push(`The answer is ${kb(answer.length)} long: only its first ${kb(SHOWN_MAX_CHARS)} are shown here; export the conversation for the whole text.`);
  let html: string | undefined;
  if (shown.length > MARKDOWN_MAX_CHARS) notes.unshift(`A long answer (${kb(shown.length)}): shown as plain text.`);
  else if (markdownDepth(shown) > MARKDOWN_MAX_DEPTH) notes.unshift(`An answer nested more than ${MARKDOWN_MAX_DEPTH} levels deep: shown as plain text.`);
  else {
    try {
      html = markdownHtml(shown, context);
    } catch {
      // The parser gave up on the input (a stack overflow included): the text is still shown.
      notes.unshift('The answer could not be read as markdown: shown as plain text.');
    }
  }
  html ??= plainHtml(shown, context);
  const noted = notes.map((n) => `<p class="chat-answer-note">${escapeHtml(n)}</p>`).join('');
  return DOMPurify.sanitize(html + noted, { ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|#)/i });
}

function markdownHtml(answer: string, context: CitationContext): string {
  const marked = markedFor(context);
  marked.use({ renderer: { html: ({ text }) => escapeHtml(text) } });
  return marked.parse(answer) as string;
}
