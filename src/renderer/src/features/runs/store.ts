import { create } from 'zustand';
import type { AppInfo, RunFinished, RunInfo, RunKind } from '../../../../shared/contract';
import { runRepoId } from '../../../../shared/contract';
import { client } from '../../lib/client';
import { toOpError, type OpError } from '../../lib/errors';
import { runReducers, type RunEntry, type RunsList } from './reducers';

interface RunsState extends RunsList {
  info: AppInfo | null;
  engine: 'connecting' | 'ok' | 'error';
  error: OpError | null;
}

interface RunsActions {
  load(): Promise<void>;
  cancel(runId: string): Promise<void>;
  /**
   * Know a run from the record its start request answered with (repos/add, eval/start, plans/solve…),
   * in case its start event comes later or never reached this window; a run already known is left as it is.
   */
  track(run: RunInfo): void;
  /** Follow run/* events; `onFinished` hears every end (connectStores routes it to the features). */
  connect(onFinished?: (finished: RunFinished) => void): () => void;
}

/** The engine's state and every run: the status bar's job list, and what the pages read their runs from. */
export const useRunsStore = create<RunsState & RunsActions>()((set, get) => ({
  runs: [],
  early: {},
  info: null,
  engine: 'connecting',
  error: null,
  load: async () => {
    try {
      const [info, listed] = await Promise.all([client().call('app/info', {}), client().call('run/list', { includeFinished: true })]);
      // Oldest first, so the newest ends up first; what events said meanwhile is kept.
      set((s) => ({ info, engine: 'ok', error: null, ...[...listed].reverse().reduce<RunsList>((list, run) => runReducers.started(list, run), { runs: s.runs, early: s.early }) }));
    } catch (error) {
      set({ engine: 'error', error: toOpError(error) });
    }
  },
  cancel: async (runId) => {
    try {
      await client().call('run/cancel', { runId });
    } catch (error) {
      set({ error: toOpError(error) });
    }
  },
  track: (run) => {
    if (get().runs.some((r) => r.runId === run.runId)) return;
    set((s) => runReducers.started(s, run));
  },
  connect: (onFinished) => {
    const c = client();
    const offs = [
      c.subscribe('run/started', (run) => set((s) => runReducers.started(s, run))),
      c.subscribe('run/progress', (p) => set((s) => runReducers.progress(s, p))),
      c.subscribe('run/finished', (f) => {
        set((s) => runReducers.finished(s, f));
        onFinished?.(f);
      }),
    ];
    return () => offs.forEach((off) => off());
  },
}));

type State = RunsState;

/** Selectors of the runs store (each returns a stored object, so a component re-renders only when it changes). */
export const runsSelectors = {
  running: (s: State) => s.runs.filter((r) => r.status === 'running'),
  all: (s: State) => s.runs,
  engine: (s: State) => s.engine,
  info: (s: State) => s.info,
  byId: (runId: string | null) => (s: State) => (runId ? (s.runs.find((r) => r.runId === runId) ?? null) : null),
  /** The newest run of a kind (any status), if any. */
  latest:
    <K extends RunKind>(kind: K) =>
    (s: State): RunEntry<K> | null =>
      (s.runs.find((r) => r.kind === kind) as RunEntry<K> | undefined) ?? null,
  /**
   * The run shown on a repository's row: its running index run, else its running embedding run.
   * Runs name their repository (`subject.repoId`), so none is matched by its title.
   */
  activeRepoRun:
    (repoId: string | null) =>
    (s: State): RunEntry<'index' | 'embed'> | null => {
      if (!repoId) return null;
      const mine = s.runs.filter((r): r is RunEntry<'index' | 'embed'> => (r.kind === 'index' || r.kind === 'embed') && r.status === 'running' && runRepoId(r) === repoId);
      return mine.find((r) => r.kind === 'index') ?? mine[0] ?? null;
    },
  /** The result of the repository's newest index run that ended well in this session. */
  lastIndexSummary: (repoId: string | null) => (s: State) => {
    const run = s.runs.find((r): r is RunEntry<'index'> => r.kind === 'index' && r.status === 'done' && r.result !== undefined && runRepoId(r) === repoId);
    return run?.result ?? null;
  },
};
