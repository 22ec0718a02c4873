import { citationParts, type ChatCitation, type ChatSource } from '../../../shared/contract/chat';
import type { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';

/**
 * The citations of an answer, each checked: `source` when the lines overlap a source of the turn,
 * `indexed` when the file is in the index and the lines within it, `unverified` otherwise (an
 * invented path, or lines past the file's end). Repeated citations are kept once.
 */
export function parseCitations(answer: string, sources: readonly ChatSource[], kb: Pick<KnowledgeBase, 'getFileByPath'>): ChatCitation[] {
  const out: ChatCitation[] = [];
  const seen = new Set<string>();
  for (const ref of citationParts(answer)) {
    if (typeof ref === 'string') continue;
    const { path, startLine, endLine } = ref;
    const key = `${path}:${startLine}-${endLine}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const inSource = sources.some((s) => s.path === path && s.startLine <= endLine && startLine <= s.endLine);
    const file = inSource ? null : kb.getFileByPath(path);
    const status: ChatCitation['status'] = inSource ? 'source' : file && file.skipReason === null && endLine <= file.lines ? 'indexed' : 'unverified';
    out.push({ text: ref.text, path, startLine, endLine, status, why: [{ kind: 'cited', detail: { startLine, endLine } }] });
  }
  return out;
}

/**
 * Removes thinking blocks from a stream of deltas as they arrive: text inside `<think>…</think>`
 * is dropped, and a tag split across deltas is held back until it is whole. `push` returns what
 * may be shown now; `end` what is left (an unclosed block shows nothing).
 */
export class ThinkingFilter {
  private pending = '';
  private inside = false;

  push(delta: string): string {
    this.pending += delta;
    let shown = '';
    for (;;) {
      const tag = this.inside ? '</think>' : '<think>';
      const at = this.pending.toLowerCase().indexOf(tag);
      if (at >= 0) {
        if (!this.inside) shown += this.pending.slice(0, at);
        this.pending = this.pending.slice(at + tag.length);
        this.inside = !this.inside;
        continue;
      }
      // Keep a tail that could be the start of the tag; release the rest.
      const keep = partialTagLength(this.pending.toLowerCase(), tag);
      const release = this.pending.slice(0, this.pending.length - keep);
      this.pending = this.pending.slice(this.pending.length - keep);
      if (!this.inside) shown += release;
      return shown;
    }
  }

  end(): string {
    const rest = this.inside ? '' : this.pending;
    this.pending = '';
    return rest;
  }
}

/** Length of the longest suffix of `text` that is a proper prefix of `tag`. */
function partialTagLength(text: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, text.length); n > 0; n--) if (tag.startsWith(text.slice(text.length - n))) return n;
  return 0;
}
