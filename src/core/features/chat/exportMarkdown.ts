import type { ChatMessage, ConversationExport, ConversationSummary } from '../../../shared/contract/chat';

/** A file name for a title: lower-case words joined by dashes, at most 60 characters, `.md`. */
export function exportFileName(title: string, conversationId: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/\p{M}/gu, '') // accents split off by NFKD: é → e
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return `${slug || conversationId}.md`;
}

/** A line of text safe as a markdown heading (no line breaks, no leading `#`). */
function headingText(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The sources of an answer as a markdown list: `path:start-end` with score and role. */
function sourcesMarkdown(message: ChatMessage): string[] {
  const sources = message.sources ?? [];
  if (sources.length === 0) return [];
  return ['', '**Sources**', '', ...sources.map((s) => `- \`${s.path}:${s.startLine}-${s.endLine}\` (${s.role}, score ${s.score})`)];
}

/** Citations the engine could not find in the index, said plainly so a reader does not trust them. */
function flaggedMarkdown(message: ChatMessage): string[] {
  const flagged = (message.citations ?? []).filter((c) => c.status === 'unverified');
  if (flagged.length === 0) return [];
  return ['', `> Unverified citations (no such file or lines in the index): ${flagged.map((c) => `\`${c.text}\``).join(', ')}`];
}

/** What an answer that did not finish says about itself. */
function statusMarkdown(message: ChatMessage): string[] {
  if (message.status === 'cancelled') return ['', '> Stopped before the answer finished.'];
  if (message.status === 'failed') return ['', `> The answer failed: ${message.error ?? 'unknown error'}`];
  return [];
}

/**
 * A conversation as markdown: its title, then each question as a heading with its answer (as the
 * model wrote it, citations included), the answer's sources, its unverified citations and whether
 * it was stopped or failed. A question with no stored answer says so.
 */
export function conversationMarkdown(summary: ConversationSummary, messages: readonly ChatMessage[], repoName: string): ConversationExport {
  const lines = [`# ${headingText(summary.title)}`, '', `Repository: ${repoName} · conversation \`${summary.conversationId}\` · last message ${summary.updatedAt}`];
  messages.forEach((m, i) => {
    if (m.role === 'user') {
      lines.push('', `## ${headingText(m.content)}`);
      if (m.content.includes('\n')) lines.push('', ...m.content.split('\n').map((l) => `> ${l}`));
      if (messages[i + 1]?.role !== 'assistant') lines.push('', '_No answer was stored._');
      return;
    }
    lines.push('', m.content || '_(empty answer)_', ...sourcesMarkdown(m), ...flaggedMarkdown(m), ...statusMarkdown(m));
  });
  return { conversationId: summary.conversationId, title: summary.title, fileName: exportFileName(summary.title, summary.conversationId), markdown: `${lines.join('\n')}\n` };
}
