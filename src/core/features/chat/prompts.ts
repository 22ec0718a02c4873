import type { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';
import { formatEvidence } from './budget';
import type { ChatEvidence } from './retrieve';

/*
 * The answer call's prompts (docs/design.md, Context assembly): history, then high-level
 * context, then the detailed evidence tagged with its source lines, then the question.
 */

/** The answer model's instructions: evidence only, cite lines, the answer protocol. */
export const ANSWER_SYSTEM = [
  'You answer questions about a code repository using only the evidence given.',
  'Cite every claim about the code as [path:start-end] with the path and lines of the evidence, for example [src/app.py:12-30].',
  'Start your reply with [Answer:] and the answer.',
  'If the evidence is not enough, reply only with [Requesting data on:] and what to search for (identifiers, file names, concepts) instead of guessing.',
].join('\n');

/** The prompt of the answer call: history, evidence (raw or summarized), earlier requests, the question. */
export function answerPrompt(
  question: string,
  evidence: readonly ChatEvidence[],
  history: string,
  options: { summary?: string; requests?: readonly string[]; overview?: string; summaries?: ReadonlyArray<{ level: number; files: string[]; text: string }> } = {},
): string {
  const parts: string[] = [];
  if (history) parts.push(history, '');
  if (options.overview) parts.push('## Repository overview', options.overview, '');
  if (options.summaries?.length) {
    parts.push('## High-level context (summaries of parts of the repository)');
    for (const s of options.summaries) parts.push(`[Summary, level ${s.level}, of ${s.files.slice(0, 8).join(', ')}${s.files.length > 8 ? `, … (${s.files.length} files)` : ''}]`, s.text, '');
  }
  if (options.summary !== undefined) {
    parts.push('## Evidence (condensed for the question)', options.summary, '', `Sources: ${evidence.map((e) => `[${e.path}:${e.startLine}-${e.endLine}]`).join(' ')}`);
  } else {
    // Files sent as a few lines go after the bodies, under a heading that says how to get more of them.
    const bodies = evidence.filter((e) => !e.excerpt);
    const excerpts = evidence.filter((e) => e.excerpt);
    parts.push('## Evidence');
    if (evidence.length === 0) parts.push('(none: no file of the repository matched)');
    else if (bodies.length > 0) parts.push(formatEvidence(bodies));
    if (excerpts.length > 0) parts.push('', '## More files that may matter (a few lines each; ask for more of one with [Requesting data on:])', formatEvidence(excerpts));
  }
  if (options.requests?.length) parts.push('', '## Your earlier requests (searched; their results are in the evidence)', ...options.requests.map((r) => `- ${r}`));
  parts.push('', '## Question', question);
  return parts.join('\n');
}

/**
 * A high-level framing of the repository for SUMMARY questions, ahead of the detailed evidence:
 * size, languages, domains and the most connected files. It stands where hierarchical summaries
 * would go; those are not built yet.
 */
export function overviewOf(kb: Pick<KnowledgeBase, 'getRepoOverview'>): string {
  const o = kb.getRepoOverview();
  const share = (m: Record<string, number>) =>
    Object.entries(m)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
  const lines = [`${o.files} files, ${o.symbols} symbols, ${o.dependencies} import edges, ${o.commits} commits.`];
  if (Object.keys(o.languages).length) lines.push(`Languages: ${share(o.languages)}.`);
  if (Object.keys(o.domains).length) lines.push(`Domains: ${share(o.domains)}.`);
  if (o.mostConnected.length) lines.push(`Most connected files: ${o.mostConnected.slice(0, 8).map((f) => `${f.path} (imports ${f.imports}, imported by ${f.importedBy})`).join('; ')}.`);
  return lines.join('\n');
}
