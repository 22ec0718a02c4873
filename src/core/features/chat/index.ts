/**
 * The chat feature (a conversation's turns: routing, evidence, the answer) as the rest of src/core sees it.
 * Other folders import this entry, never a file inside the feature (src/core/levels.test.ts); add
 * an export here when another folder needs one.
 */
export { evidenceBeforeAnswer } from './evidence';
export { conversationMarkdown } from './exportMarkdown';
export { type TurnLimits } from './limits';
export { RetrievedNodeCache, withNodeCache } from './nodeCache';
export { type ChatPipeline, DEFAULT_PIPELINE, describeProblem, type EdgeKind, loadPipelines, type PipelineSet, REPO_PIPELINE_DIR } from './pipeline';
export { evidenceCost, expand, trimEvidence } from './retrieve';
export { ConversationStore } from './store';
export { runChatTurn } from './turn';
