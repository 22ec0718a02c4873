import DOMPurify from 'dompurify';
import { Marked, type TokenizerAndRendererExtension, type Tokens } from 'marked';
import { citationParts, type ChatCitation, type ChatSource } from '../../../../shared/contract/chat';

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
      const first = citationParts(src)[0];
      if (!first || typeof first === 'string' || !src.startsWith(first.text)) return undefined;
      return { type: 'citation', raw: first.text, path: first.path, startLine: first.startLine, endLine: first.endLine } satisfies CitationToken;
    },
    renderer(token) {
      const t = token as CitationToken;
      const text = escapeHtml(t.raw);
      const view = citationView(t.raw, t.path, context);
      if (view === 'unverified') return `<span class="chat-citation unverified" title="Not in the index: the model cited a file or lines that do not exist">${text}</span>`;
      if (view === 'pending') return `<span class="chat-citation pending" title="Checking this citation…">${text}</span>`;
      const data = `data-path="${escapeHtml(t.path)}" data-line="${t.startLine}" data-end-line="${t.endLine}"`;
      return `<button type="button" class="link chat-citation" ${data} title="Open ${escapeHtml(t.path)} at line ${t.startLine}">${text}</button>`;
    },
  };
  return new Marked({ gfm: true, breaks: false, async: false, extensions: [citation] });
}

/**
 * An answer as sanitized HTML: markdown (paragraphs, lists, code), its `[path:line]` citations as
 * buttons carrying `data-path`/`data-line`/`data-end-line` (or flagged spans), everything the
 * model wrote passed through DOMPurify (no scripts, handlers or `javascript:` links). Raw HTML in
 * the answer is shown as text, not rendered.
 */
export function answerHtml(answer: string, context: CitationContext): string {
  const marked = markedFor(context);
  marked.use({ renderer: { html: ({ text }) => escapeHtml(text) } });
  const html = marked.parse(answer) as string;
  return DOMPurify.sanitize(html, { ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|#)/i });
}
