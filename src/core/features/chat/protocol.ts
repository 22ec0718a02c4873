/*
 * The answer protocol (docs/design.md, The answer protocol): the answer model starts its reply with
 * `[Answer:]` (a final answer) or `[Requesting data on:]` (a follow-up retrieval). The markers are
 * protocol, never shown. A reply with neither is taken as an answer (small models often forget the
 * marker; showing their text beats discarding it) and the trace says so.
 */

export const ANSWER_MARKER = '[Answer:]';
export const REQUEST_MARKER = '[Requesting data on:]';

/** How a reply began. */
export type ReplyKind = 'answer' | 'request' | 'unmarked';

/**
 * Reads a streamed reply (thinking already removed): holds text back until it knows the marker,
 * then passes an answer's text through and swallows a request's (kept in `request`).
 */
export class AnswerStreamFilter {
  private head = '';
  private body = '';
  /** After `[Answer:]`, blank space is dropped until the answer's first character. */
  private trimming = false;
  kind: ReplyKind | undefined;

  /** Text that may be shown now. */
  push(text: string): string {
    if (this.kind === 'request') {
      this.body += text;
      return '';
    }
    if (this.kind) return this.afterMarker(text);
    this.head += text;
    const trimmed = this.head.trimStart();
    const couldBe = (marker: string) => trimmed.length < marker.length && marker.toLowerCase().startsWith(trimmed.toLowerCase());
    if (couldBe(ANSWER_MARKER) || couldBe(REQUEST_MARKER)) return '';
    if (startsWithMarker(trimmed, REQUEST_MARKER)) {
      this.kind = 'request';
      this.body = trimmed.slice(REQUEST_MARKER.length);
      return '';
    }
    if (startsWithMarker(trimmed, ANSWER_MARKER)) {
      this.kind = 'answer';
      this.trimming = true;
      return this.afterMarker(trimmed.slice(ANSWER_MARKER.length));
    }
    this.kind = 'unmarked';
    return this.head;
  }

  private afterMarker(text: string): string {
    if (!this.trimming) return text;
    const out = text.trimStart();
    if (out !== '') this.trimming = false;
    return out;
  }

  /** At the end of the stream: what is still held back (a reply shorter than a marker). */
  end(): string {
    if (this.kind) return '';
    this.kind = 'unmarked';
    return this.head;
  }

  /** The request's text (what data the model asks for), for a `request` reply. */
  get request(): string {
    return this.body.trim();
  }
}

function startsWithMarker(text: string, marker: string): boolean {
  return text.slice(0, marker.length).toLowerCase() === marker.toLowerCase();
}

/**
 * The plain statement a turn ends with when the follow-up loop is used up: what was asked for and
 * not found, and no guess.
 */
export function missingStatement(requests: readonly string[], loops: number): string {
  const asked = requests.map((r) => `- ${r}`).join('\n');
  return [
    `I could not answer this from the repository: after ${loops} follow-up search${loops === 1 ? '' : 'es'} the evidence still lacks what is needed.`,
    '',
    'Still missing:',
    asked || '- (the model did not say)',
    '',
    'Try naming the file, function or identifier involved, or rephrase the question.',
  ].join('\n');
}
