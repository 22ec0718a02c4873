/** A task's gold lines: the old-side ranges its commit changed, read by the one diff-hunk reader (git/diffHunks.ts). */
export { changedLines, parseHunks, type ChangedLines, type ChangedRange } from '../../platform/git/diffHunks';
