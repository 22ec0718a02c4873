/**
 * Reading a solve run back: its detail for `solve/get` (parts, steps, passes, diffs, validation)
 * and `solveRunDiffs` for diff review — per-step and cumulative unified diffs, the HEAD commit at
 * the start and the content hash of every changed file as it was in the user's tree then, so a
 * review can refuse to apply over a file that changed since.
 */
import { AppError } from '../../shared/contract';
import type { SolveOutcome, SolvePartView, SolveRunDetail } from '../../shared/contract/solve';
import type { Db } from '../db/open';
import { gitText, runGit } from '../git';
import { effectiveStatus, SolveRecords, type SolveRunRow } from './solveRecords';
import { SESSION_KEYS, SqliteSolveSession, type OrchestratorProgress } from './solveSession';
import { contentHash } from './solveWorkspace';

/** The diffs of a run, for review. */
export interface SolveRunDiffs {
  solveRunId: string;
  /** The user's HEAD when the run started. */
  headCommit: string;
  /** The commit the diffs apply to (HEAD, or the uncommitted changes on it). */
  startCommit: string;
  /** Each succeeded step's diff, in order. */
  steps: Array<{ partId: string | null; stepId: string | null; sequence: number; diff: string }>;
  cumulative: string;
  /** Per changed file: sha256 of its content in the user's tree at the start; null when it did not exist. */
  baseHashes: Record<string, string | null>;
}

function runRow(records: SolveRecords, solveRunId: string): SolveRunRow {
  const row = records.run(solveRunId);
  if (!row) throw new AppError('NOT_FOUND', `No solve run ${solveRunId}; \`cra solve --list\` shows the runs.`);
  return row;
}

/**
 * Paths a diff touches (both sides of a rename), as git reads the diff: `git apply --numstat -z`
 * (nothing applied), NUL-separated, so names git quotes (`quote"name.txt`, a tab) come out as they are.
 */
export async function diffPaths(repo: string, diff: string): Promise<string[]> {
  if (!diff.trim()) return [];
  const fields = (await gitText(['apply', '--numstat', '-z', '-'], { cwd: repo, input: diff })).split('\0');
  const paths = new Set<string>();
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    if (field === '') continue;
    // `added<TAB>deleted<TAB>path`: the path is the rest (a name may hold a tab).
    const name = field.split('\t').slice(2).join('\t');
    if (name === '') {
      // A rename: its two names follow, each in a field of its own.
      paths.add(fields[++i]!);
      paths.add(fields[++i]!);
    } else paths.add(name);
  }
  return [...paths];
}

/**
 * Per-step and cumulative diffs of a run, the HEAD it started from, and the base content hash of
 * each changed file (the user's file then: dirty files hashed at the start, clean ones read from
 * HEAD). A run still going has the cumulative diff of its last completed step.
 */
export async function solveRunDiffs(raw: Db, repoPath: string, solveRunId: string, sessionFile?: string): Promise<SolveRunDiffs> {
  const records = new SolveRecords(raw);
  const row = runRow(records, solveRunId);
  const steps = records
    .passes(solveRunId)
    .filter((p) => (p.type === 'step_implement' || p.type === 'implement') && p.status === 'succeeded' && p.diff)
    .map((p) => ({ partId: p.partId, stepId: p.stepId, sequence: p.sequence, diff: p.diff! }));
  let cumulative = row.cumulative_diff ?? '';
  if (row.status === 'running' && sessionFile && SqliteSolveSession.exists(sessionFile)) {
    const session = SqliteSolveSession.open(sessionFile);
    try {
      cumulative = session.get<string>(SESSION_KEYS.cumulativeDiff) ?? cumulative;
    } finally {
      session.close();
    }
  }
  const dirty = JSON.parse(row.base_hashes_json || '{}') as Record<string, string | null>;
  const baseHashes: Record<string, string | null> = {};
  for (const path of await diffPaths(repoPath, cumulative)) {
    if (path in dirty) baseHashes[path] = dirty[path] ?? null;
    else baseHashes[path] = await runGit(['cat-file', 'blob', `${row.base_commit}:${path}`], { cwd: repoPath }).then(contentHash, () => null);
  }
  return { solveRunId, headCommit: row.base_commit, startCommit: row.start_commit, steps, cumulative, baseHashes };
}

/** The run as `solve/get` returns it; `isLive` tells a running row of a live process from one left by a killed process. */
export function solveRunDetail(raw: Db, solveRunId: string, isLive: (row: SolveRunRow) => boolean, sessionFile?: string): SolveRunDetail {
  const records = new SolveRecords(raw);
  const row = runRow(records, solveRunId);
  const passes = records.passes(solveRunId);
  let progress = row.progress_json ? (JSON.parse(row.progress_json) as OrchestratorProgress) : undefined;
  let cumulative = row.cumulative_diff ?? '';
  if (sessionFile && SqliteSolveSession.exists(sessionFile)) {
    const session = SqliteSolveSession.open(sessionFile);
    try {
      progress ??= session.get<OrchestratorProgress>(SESSION_KEYS.progress);
      if (!row.cumulative_diff) cumulative = session.get<string>(SESSION_KEYS.cumulativeDiff) ?? '';
    } finally {
      session.close();
    }
  }
  const outcome = row.outcome_json ? (JSON.parse(row.outcome_json) as SolveOutcome) : null;
  const parts: SolvePartView[] = (progress?.parts ?? []).map((p) => ({ id: p.part.id, title: p.part.title, status: p.status, steps: p.steps.map((s) => ({ id: s.step.id, description: s.step.description, status: s.status, ...(s.error ? { error: s.error } : {}) })) }));
  const status = effectiveStatus(row, isLive);
  return { solveRunId, repoId: row.repo_id, task: row.task, mode: row.mode, status, baseCommit: row.base_commit, startedAt: row.started_at, finishedAt: row.finished_at, parts, passes, cumulativeDiff: cumulative, outcome };
}
