// The domain's fixed word lists that requests take as enums (src/shared/contract/inputs.ts makes
// the schemas), in a module without zod so that a command's help can list them at no start-up cost.

/** The search modes (`auto` picks one from the query and the index). */
export const SEARCH_MODES = ['auto', 'keyword', 'semantic', 'hybrid'] as const;
/** The modes a chat turn can be asked for: the search modes; `bm25`, the old name of `keyword` here, still accepted for one release. */
export const CHAT_MODES = [...SEARCH_MODES, 'bm25'] as const;
/** The search mode an evaluation measures. */
export const EVAL_SEARCH_MODES = ['keyword', 'hybrid', 'semantic'] as const;
/** The judges of a pipeline evaluation: yes keeps every candidate, oracle says yes exactly for the gold, model asks the configured model. */
export const EVAL_JUDGES = ['yes', 'oracle', 'model'] as const;
