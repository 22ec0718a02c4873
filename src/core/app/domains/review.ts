import type { Handlers } from '../../../shared/contract';
import type { ReviewFileView } from '../../../shared/contract/review';
import type { EngineContext } from '../engine';
import { appliedHunks, applyReviewed, readUndo, recoverApply, undoLastApply, changedFilesFromDiff, displayLine, hunkHeader, reviewFiles, type ChangedFile, type ReviewFile } from '../../features/review';
import { reviewFiles as reviewStateFiles } from '../../platform/layout';

/** What review needs of a run: where it started and its change (cumulative and per step). */
export interface ReviewableRun {
  baseCommit: string;
  /** The cumulative unified diff against `baseCommit` (made with --no-renames). */
  diff: string;
  steps: Array<{ id: string; label: string; diff: string }>;
}

/** Where runs come from (the solve orchestrator's store). NOT_FOUND when the repository has no such run. */
export type ReviewRunSource = (repoId: string, runId: string) => Promise<ReviewableRun>;

type ReviewHandlers = Pick<Handlers, 'review/get' | 'review/apply' | 'review/undo'>;

function hunkView(file: ReviewFile): ReviewFileView {
  const header = file.diff.slice(0, file.diff.indexOf('\n@@'));
  return {
    path: file.path,
    status: file.status,
    diff: file.diff,
    ...(file.binary ? { binary: file.binary } : {}),
    hunks: file.hunks.map((h) => ({
      id: h.id,
      oldStart: h.oldStart,
      oldLines: h.oldLines,
      newStart: h.newStart,
      newLines: h.newLines,
      diff: file.binary ? file.diff : `${header}\n${hunkHeader(h)}\n${h.lines.map(displayLine).join('\n')}\n`,
      added: h.lines.filter((l) => l[0] === '+').length,
      removed: h.lines.filter((l) => l[0] === '-').length,
    })),
  };
}

/**
 * Review: a run's change cut into hunks, the accepted ones written to the working tree (checked
 * against the run's start first), and the last apply undone. The one path by which a run's change
 * reaches the user's files.
 */
export function createReviewHandlers(ctx: Pick<EngineContext, 'repos'>, source: ReviewRunSource): ReviewHandlers {
  const changeOf = async (repoId: string, runId: string): Promise<{ path: string; run: ReviewableRun; files: ChangedFile[]; undoFile: string }> => {
    const { info, paths } = ctx.repos.use(repoId, (repo) => ({ info: repo.info, paths: repo.paths }));
    const run = await source(info.id, runId);
    const undoFile = reviewStateFiles(paths.review).undo;
    // An apply a killed process left is finished or rolled back before anything is read.
    recoverApply(info.path, undoFile);
    return { path: info.path, run, files: await changedFilesFromDiff(info.path, run.baseCommit, run.diff), undoFile };
  };
  return {
    'review/get': async ({ repoId, runId }) => {
      const { path, run, files, undoFile } = await changeOf(repoId, runId);
      const undo = readUndo(undoFile);
      const views = reviewFiles(files).map(hunkView);
      const known = new Set(views.flatMap((f) => f.hunks.map((h) => h.id)));
      return {
        runId,
        baseCommit: run.baseCommit,
        files: views,
        applied: appliedHunks(path, undoFile, runId).filter((id) => known.has(id)),
        steps: run.steps,
        undo: undo ? { runId: undo.runId, appliedAt: undo.appliedAt, files: undo.files.map((f) => f.path) } : null,
      };
    },
    'review/apply': async ({ repoId, runId, accepted }) => {
      const { path, files, undoFile } = await changeOf(repoId, runId);
      return applyReviewed({ repo: path, files, accepted, undoFile, runId });
    },
    'review/undo': async ({ repoId }) => {
      const { info, paths } = ctx.repos.use(repoId, (repo) => ({ info: repo.info, paths: repo.paths }));
      return undoLastApply(info.path, reviewStateFiles(paths.review).undo);
    },
  };
}
