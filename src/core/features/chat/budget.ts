import type { TurnCalls } from './calls';
import { evidenceCost, type ChatEvidence } from './retrieve';

/*
 * Evidence over `max_context_tokens` (docs/design.md, Evidence and its budget): one query-aware model call
 * condenses it, keeping identifiers — paths with lines, symbol names — so the answer can still cite.
 * A summary that drops a path gets the path back in a list under it (the model may not lose what
 * the answer needs to cite); a failed call leaves the worst evidence out instead.
 */

/** The summarizer's instructions. */
export const EVIDENCE_SUMMARY_SYSTEM = [
  'You condense evidence from a code repository so that a question can be answered from it.',
  'Keep every file path with its lines in the form [path:start-end], and every symbol name, identifier, string and number that bears on the question, written exactly.',
  'Drop what does not bear on the question. Write plain notes, no preamble.',
].join('\n');

/** The summarizer reads at most this many times the budget; the worst evidence beyond is left out. */
export const SUMMARY_INPUT_FACTOR = 3;

/** A condensed evidence set: the summary, the pieces it covers, and what happened. */
export interface EvidenceSummary {
  summary: string;
  /** The evidence that went into the summary (the sources of the turn). */
  covered: ChatEvidence[];
  notes: string[];
}

const citation = (e: Pick<ChatEvidence, 'path' | 'startLine' | 'endLine'>) => `[${e.path}:${e.startLine}-${e.endLine}]`;

/** The evidence block of an answer prompt, raw. */
export function formatEvidence(evidence: readonly ChatEvidence[]): string {
  return evidence.map((e) => [`[Source: ${e.path}:${e.startLine}-${e.endLine}]`, '```', e.text, '```'].join('\n')).join('\n');
}

/**
 * The evidence the summarizer reads (best first while it fits {@link SUMMARY_INPUT_FACTOR} × the
 * budget): the sources of a condensed turn. No model call; `cra eval --chat-evidence` reads it too.
 */
export function summaryInput(evidence: readonly ChatEvidence[], budgetTokens: number): ChatEvidence[] {
  const covered: ChatEvidence[] = [];
  let tokens = 0;
  for (const e of evidence) {
    if (tokens + evidenceCost(e) > budgetTokens * SUMMARY_INPUT_FACTOR) continue;
    tokens += evidenceCost(e);
    covered.push(e);
  }
  return covered;
}

/** Summarize evidence for the question within `budgetTokens`; throws when the call fails. */
export async function summarizeEvidence(options: { calls: TurnCalls; question: string; evidence: readonly ChatEvidence[]; budgetTokens: number; signal?: AbortSignal }): Promise<EvidenceSummary> {
  const notes: string[] = [];
  const covered = summaryInput(options.evidence, options.budgetTokens);
  const left = options.evidence.length - covered.length;
  if (left > 0) notes.push(`${left} more piece${left === 1 ? '' : 's'} of evidence left out: more than the summarizer reads (${SUMMARY_INPUT_FACTOR} × ${options.budgetTokens} tokens).`);
  const words = Math.max(50, Math.floor(options.budgetTokens * 0.6));
  const prompt = [`Question: ${options.question}`, '', '## Evidence', formatEvidence(covered), '', `Condense the evidence for answering the question, in at most ${words} words.`].join('\n');
  let summary = await options.calls.text('evidence-summary', prompt, { stage: 'summarize', system: EVIDENCE_SUMMARY_SYSTEM, signal: options.signal });
  if (summary === '') throw new Error('the summarizer replied with nothing');
  const lost = covered.filter((e) => !summary.includes(e.path));
  const listing = lost.length > 0 ? `\nOther sources given: ${lost.map(citation).join(' ')}` : '';
  if (lost.length > 0) notes.push(`The summary dropped ${lost.length} path${lost.length === 1 ? '' : 's'}; they were listed under it.`);
  const room = Math.max(200, options.budgetTokens * 4 - listing.length);
  if (summary.length > room) {
    summary = `${summary.slice(0, room - 1)}…`;
    notes.push(`The summary was longer than the budget (${options.budgetTokens} tokens) and was cut.`);
  }
  summary += listing;
  return { summary, covered, notes };
}
