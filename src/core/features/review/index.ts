/**
 * The review feature (a run's diff as hunks, applied to the user's tree byte for byte, journalled, undoable) as the rest of src/core sees it.
 * Other folders import this entry, never a file inside the feature (src/core/levels.test.ts); add
 * an export here when another folder needs one.
 */
export { appliedHunks, applyReviewed, readUndo, recoverApplies, recoverApply, undoLastApply } from './apply';
export { changedFilesFromDiff } from './fromDiff';
export { type ChangedFile, displayLine, hunkHeader, type ReviewFile, reviewFiles } from './hunks';
