/**
 * The retrieval feature (the Context inspector's pipeline: scope, precision and refine stages, judges, the context package) as the rest of src/core sees it.
 * Other folders import this entry, never a file inside the feature (src/core/levels.test.ts); add
 * an export here when another folder needs one.
 */
export { effectiveBudget, validateSafetyMargin } from './budget';
export { type DecisionRecord, type DecisionSink, RawDecisionLog } from './decisionLog';
export { type BinaryJudge, type Judged, type JudgeSetup, type Judgment, runBinaryJudgment } from './judge';
export { judgePrompt, splitChatJudgment } from './judgePrompts';
export { type BudgetConfig, buildPackage, renderMarkdown } from './package';
export { type RetrievalDeps, retrieve } from './pipeline';
export { preflightRetrieval } from './preflight';
export { refineContext, type RefinementRequest, resolveEvidence } from './refine';
export { type RetrievalSession } from './session';
export { retrievalSettings, type RetrievalSettings } from './settings';
export { type ContextFile, type ContextSymbol, runPipeline, type StageContext } from './stage';
export { describeSymbol, PRECISION_QUESTIONS, type PrecisionOptions, PrecisionStage, type SymbolCandidate, symbolCandidates } from './stages/precision';
export { describeFile, SCOPE_DEFAULTS, SCOPE_QUESTION, scopeCandidates, type ScopeOptions, ScopeStage } from './stages/scope';
export { analyzeTask } from './taskAnalysis';
