/**
 * The plans feature (Plans & Runs: a plan, its solve runs, their edits and the validation sandbox) as the rest of src/core sees it.
 * Other folders import this entry, never a file inside the feature (src/core/levels.test.ts); add
 * an export here when another folder needs one.
 */
export { createPlan, PLAN_SYSTEM, planPrompt } from './plan';
export { listPlans, loadPlan, newPlanId, savePlan } from './planStore';
export { type PlanRepoView, readPlanReply, readPlanValue } from './planValidate';
export { detectSandbox, noSandboxMessage, requireSandbox } from './sandbox';
export { checkMetaPlan } from './solveChecks';
export { solveRunDetail, solveRunDiffs, type SolveRunDiffs } from './solveDiffs';
export { implementPrompt, partPlanText, SOLVE_SYSTEM } from './solvePasses';
export { effectiveStatus, SolveRecords, type SolveRunRow, worktreeIsLive } from './solveRecords';
export { executeSolve } from './solveRun';
export { solveSessionFile, SqliteSolveSession } from './solveSession';
