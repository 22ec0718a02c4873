/**
 * Product words for the engine's internal names: pipeline steps and model-call purposes, embedder
 * ids. The raw name stays available in a tooltip for people who write pipeline files.
 */
const STEPS: Record<string, string> = {
  translate_in: 'Translate the question',
  translate_in_if_needed: 'Translate the question (if needed)',
  translate_out: 'Translate the answer',
  load_conversation_history: 'Read the conversation so far',
  route_question: 'Decide whether to search the code',
  route: 'Decide whether to search the code',
  fetch_more_context: 'Search the code',
  expand_dependency_tree: 'Follow imports',
  fetch_node_texts: 'Read the code found',
  check_context_budget: 'Check the context size',
  summarize_context: 'Summarize the context',
  trim_context: 'Trim the context',
  answer: 'Write the answer',
  loop_guard: 'Stop a loop',
  finalize_missing: 'Say what is missing',
  finalize: 'Finish',
  follow_up: 'Suggest follow-ups',
  scope: 'Judge files',
  precision: 'Judge symbols',
  precision_pass1: 'Judge symbols (relevant?)',
  precision_pass2: 'Judge symbols (full source?)',
  task_analysis: 'Understand the task',
  similarity: 'Compare with past changes',
  summarize: 'Summarize',
  chat: 'Answer',
  plan: 'Plan',
  execute: 'Write the change',
};

/** A pipeline step or model-call purpose in words (`translate_in` → "Translate the question"); an unknown name in words from its parts. */
export function stepLabel(name: string): string {
  const known = STEPS[name];
  if (known) return known;
  const words = name.replace(/[_-]+/g, ' ').trim();
  return words ? words.charAt(0).toUpperCase() + words.slice(1) : name;
}

/** An embedder id in words: `use-lite` is the built-in embedder; `ollama:nomic-embed-text` a model of the model server. */
export function embedderLabel(id: string): string {
  if (id === 'use-lite') return 'the built-in embedder';
  const ollama = /^ollama:(.+)$/.exec(id);
  return ollama ? `${ollama[1]} (model server)` : id;
}
