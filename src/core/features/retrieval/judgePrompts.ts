/**
 * Prompt templates of the binary judgment, one per judge family. Readable copies ship in
 * resources/prompts/ (judgePrompts.test.ts fails when they differ); the engine uses these so the
 * CLI bundle and the tests need no file lookup. The shared task comes first and the item last,
 * so a server can reuse the prompt prefix across the calls of one stage.
 */

/** Which prompt form a judge model understands. */
export type JudgeFamily = 'reranker' | 'chat';

/** The system prompt Qwen3-Reranker models were trained with (their score is P(yes) of the next token). */
export const RERANKER_SYSTEM =
  'Judge whether the Document meets the requirements based on the Query and the Instruct provided. Note that the answer can only be "yes" or "no".';

/** The reranker's user turn: `{instruct}`, `{query}` (the task), `{document}` (the item). */
export const RERANKER_USER = '<Instruct>: {instruct}\n<Query>: {query}\n<Document>: {document}';

/** The system prompt of a plain chat model used as a judge: `{instruct}` is the stage's question. */
export const CHAT_SYSTEM =
  'You are a strict reviewer of context for a coding task. {instruct} Answer with exactly one word: yes or no. Do not explain.';

/** The chat judge's user turn. */
export const CHAT_USER = 'Task:\n{query}\n\nItem:\n{document}\n\nAnswer yes or no.';

/** The family of a model by its name: reranker models get the reranker form, everything else the chat form. */
export function judgeFamilyOf(model: string): JudgeFamily {
  return /rerank/i.test(model) ? 'reranker' : 'chat';
}

/** Fill `{name}` slots; a slot without a value is a programming error. */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`prompt template slot {${name}} has no value`);
    return value;
  });
}

/** The system prompt and user turn of one judgment. */
export function judgePrompt(family: JudgeFamily, values: { instruct: string; query: string; document: string }): { system: string; prompt: string } {
  return family === 'reranker'
    ? { system: RERANKER_SYSTEM, prompt: fillTemplate(RERANKER_USER, values) }
    : { system: fillTemplate(CHAT_SYSTEM, values), prompt: fillTemplate(CHAT_USER, values) };
}

/**
 * The parts of a chat-form judgment ({@link judgePrompt}'s 'chat' output, as a bootstrap dataset
 * stores it): null when the system prompt or the user turn is not of that form.
 */
export function splitChatJudgment(system: string, prompt: string): { instruct: string; query: string; document: string } | null {
  const [sysHead, sysTail] = CHAT_SYSTEM.split('{instruct}') as [string, string];
  const [userHead, userMid, userTail] = CHAT_USER.split(/\{query\}|\{document\}/) as [string, string, string];
  if (!system.startsWith(sysHead) || !system.endsWith(sysTail) || !prompt.startsWith(userHead) || !prompt.endsWith(userTail)) return null;
  const body = prompt.slice(userHead.length, prompt.length - userTail.length);
  const cut = body.indexOf(userMid);
  if (cut < 0) return null;
  return { instruct: system.slice(sysHead.length, system.length - sysTail.length), query: body.slice(0, cut), document: body.slice(cut + userMid.length) };
}
