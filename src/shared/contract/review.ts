import { z } from 'zod';
import { request } from './define';

/**
 * Diff review (issue #15): a run's change, per file and per hunk, accepted or rejected by the user;
 * only the accepted hunks are written to the working tree, and the last apply can be undone.
 */

/** One hunk of a changed file; `id` is what `review/apply` takes. */
export interface ReviewHunkView {
  id: string;
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** A unified diff of this hunk alone (with its file's header), for diff2html. */
  diff: string;
  added: number;
  removed: number;
}

/** One changed file of a run. */
export interface ReviewFileView {
  path: string;
  status: 'added' | 'deleted' | 'modified';
  /** The file's whole unified diff. */
  diff: string;
  /** Set for a binary file: its sizes in bytes (null: absent); its one hunk writes the whole file. */
  binary?: { before: number | null; after: number | null };
  hunks: ReviewHunkView[];
}

/** A run's change as review shows it. */
export interface ReviewView {
  runId: string;
  /** The commit the run started from. */
  baseCommit: string;
  /** The cumulative change, per file. */
  files: ReviewFileView[];
  /** Each step's own diff, in order (read-only). */
  steps: Array<{ id: string; label: string; diff: string }>;
  /** The hunks (ids) this run's applies wrote that the working tree still holds. */
  applied: string[];
  /** The last apply in this repository, if it can still be undone. */
  undo: { runId: string; appliedAt: string; files: string[] } | null;
}

const ids = { repoId: z.string().min(1), runId: z.string().min(1).max(200) };

/** Requests of the review domain. */
export const reviewRequests = {
  'review/get': request<ReviewView>()("A run's change for review: files and hunks (cumulative), each step's diff, and the undoable last apply", () => z.object(ids), {
    repoId: 'repo-1',
    runId: 'run-1',
  }),
  'review/apply': request<{ written: string[]; hunks: number }>()(
    "Write the accepted hunks of a run's change to the working tree (refused, writing nothing, when an affected file changed since the run started); every other hunk is rejected",
    () => z.object({ ...ids, accepted: z.array(z.string().min(1)).min(1, { error: 'accept at least one hunk' }).max(10_000) }),
    { repoId: 'repo-1', runId: 'run-1', accepted: ['src/a.ts#0:0123456789'] },
  ),
  'review/undo': request<{ restored: string[]; runId: string }>()(
    "Undo the repository's last apply (refused when a written file changed since)",
    () => z.object({ repoId: z.string().min(1) }),
    { repoId: 'repo-1' },
  ),
} as const;
