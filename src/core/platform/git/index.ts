/** The one git module: the runner (one environment for every command), repository queries and worktrees. */
export { DEFAULT_MAX_BUFFER, GIT_BASE_ARGS, GitError, gitEnv, gitText, readObjectsFrom, runGit, runGitSync, type GitFailure, type RunGitOptions } from './run';
export { gitHead, isAncestor, isGitWorkTree, repositoryRoot, resolveCommit } from './repo';
export { cleanupOrphanWorktrees, listWorktrees, Worktree, type CreateWorktreeOptions, type OwnedWorktree } from './worktree';
