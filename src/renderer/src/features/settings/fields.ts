/** One editable key of config.toml on the Settings page. */
export interface SettingField {
  path: string[];
  label: string;
  kind: 'int' | 'float' | 'text' | 'bool' | 'select';
  options?: string[];
  help?: string;
}

/** The form, by section. */
export const SETTING_SECTIONS: Array<{ title: string; fields: SettingField[] }> = [
  {
    title: 'Model server',
    fields: [
      { path: ['models', 'provider'], label: 'Provider', kind: 'select', options: ['ollama', 'openai_compat', 'builtin'] },
      { path: ['models', 'base_url'], label: 'Server address', kind: 'text', help: 'Empty: $OLLAMA_HOST, else http://127.0.0.1:11434' },
      { path: ['models', 'start_ollama'], label: 'Start Ollama when it is not running', kind: 'bool' },
      { path: ['models', 'timeout_s'], label: 'Call timeout (s)', kind: 'float' },
      {
        path: ['models', 'context_window'],
        label: 'Context window per model call',
        kind: 'int',
        help: 'Tokens the server holds for each call (num_ctx), unless a stage sets its own; more costs memory',
      },
      { path: ['models', 'max_tokens'], label: 'Max tokens', kind: 'int' },
      { path: ['models', 'temperature'], label: 'Temperature', kind: 'float' },
    ],
  },
  {
    title: 'Budget',
    fields: [
      {
        path: ['budget', 'context_window'],
        label: 'Execute prompt budget',
        kind: 'int',
        help: "Tokens retrieval plans for when it packs code into the execute stage's prompt; keep it within that model's window",
      },
      { path: ['budget', 'reserved_tokens'], label: 'Reserved tokens', kind: 'int', help: 'System prompt, task, retries and completion; must be below the window' },
    ],
  },
  {
    title: 'Retrieval',
    fields: [
      { path: ['retrieval', 'mode'], label: 'Mode', kind: 'select', options: ['auto', 'keyword', 'hybrid', 'semantic'] },
      { path: ['retrieval', 'top_k'], label: 'Results (top k)', kind: 'int', help: 'Files a search lists; [retrieval].top_k' },
      { path: ['retrieval', 'embeddings'], label: 'Compute vectors after each index', kind: 'bool', help: 'Needed by the hybrid and semantic modes; costs CPU' },
    ],
  },
  {
    title: 'Chat',
    fields: [
      { path: ['chat', 'max_answer_kb'], label: 'Longest answer kept (KB)', kind: 'int', help: 'A longer answer is cut, with a note; [chat].max_answer_kb' },
      { path: ['chat', 'max_model_calls'], label: 'Model calls per question', kind: 'int', help: 'A pipeline that loops stops here; per_item re-ranking needs more; [chat].max_model_calls' },
    ],
  },
  {
    title: 'Orchestrator',
    fields: [
      { path: ['orchestrator', 'max_parts'], label: 'Max parts', kind: 'int' },
      { path: ['orchestrator', 'max_steps_per_part'], label: 'Max steps per part', kind: 'int' },
      { path: ['orchestrator', 'max_adjustment_rounds'], label: 'Max adjustment rounds', kind: 'int' },
    ],
  },
  {
    title: 'Validation sandbox',
    fields: [
      {
        path: ['sandbox', 'allow_unsandboxed_validation'],
        label: 'Run validation commands without a sandbox where this machine has none',
        kind: 'bool',
        help: 'Validation runs code the model may have written, before you review it. It runs in an OS sandbox (Linux: bubblewrap; macOS: sandbox-exec); where there is none it runs with your rights only when this is on',
      },
    ],
  },
];

/** The value at a key path of the config values. */
export function valueAt(values: Record<string, unknown> | null, path: string[]): unknown {
  let cur: unknown = values;
  for (const key of path) cur = cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[key] : undefined;
  return cur;
}

/** A form draft as the value to write: numbers parsed, empty text removes the key. Null when not a valid number. */
export function draftToValue(field: SettingField, draft: string): string | number | boolean | null | undefined {
  if (field.kind === 'bool') return draft === 'true';
  if (field.kind === 'text' || field.kind === 'select') return draft.trim() === '' ? null : draft.trim();
  const n = Number(draft);
  if (draft.trim() === '' || !Number.isFinite(n) || (field.kind === 'int' && !Number.isInteger(n))) return undefined;
  return n;
}
