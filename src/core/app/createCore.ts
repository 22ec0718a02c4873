import { mkdirSync } from 'node:fs';
import type { Handlers } from '../../shared/contract';
import { setDefaultNativeBinding } from '../platform/db/open';
import { createAppHandlers } from './domains/app';
import { createConfigHandlers } from './domains/config';
import { createModelServices } from '../platform/llm/services';
import { RawRunJournal } from '../platform/logs/runLog';
import { createRepoHandlers } from './domains/repos';
import { createSearchDomain } from './domains/search';
import type { ChatDomain } from './domains/chat';
import { createBackgroundEmbedder } from '../knowledge/search/workerEmbedder';
import { createSummariesDomain } from './domains/summaries';
import type { PlansRunsDomain } from './domains/plansRuns';
import { DOMAIN_KEYS, domainModules, lazyHandlers } from './lazyDomains';
import type { EngineContext } from './engine';
import { cleanupOrphanWorktrees, readObjectsFrom } from '../platform/git';
import { packageVersion } from '../platform/paths';
import { hostPolicy, type HostPorts } from '../platform/ports';
import { RepoHandles } from '../knowledge/repos/handles';
import { RepoRegistry } from '../knowledge/repos/registry';
import { RepoService, type RepoServiceOptions } from '../knowledge/repos/service';
import { recoverApplies } from '../features/review';
import { EventBus } from '../platform/runtime/events';
import { RunRegistry } from '../platform/runtime/runs';
import { KbReaders } from '../knowledge/kb/readers';
import { keptObjectsDir, worktreesDir } from '../platform/layout';

/** The engine as a host sees it: one handler per contract key, the event bus, and shutdown. */
export interface Core {
  handlers: Handlers;
  events: EventBus;
  runs: RunRegistry;
  context: EngineContext;
  /** Solve runs' diffs for diff review (`cra review`). */
  solve: Pick<PlansRunsDomain, 'diffs'>;
  dispose(): Promise<void>;
}

/** How much of the shared state an engine takes charge of (see {@link RepoServiceOptions}). */
export type CoreOptions = RepoServiceOptions;

/**
 * Composition root. Each domain contributes the handlers for its keys; the `Handlers` type makes a
 * missing key a compile error.
 */
export function createCore(ports: HostPorts, options: CoreOptions = {}): Core {
  mkdirSync(ports.dataDir, { recursive: true });
  if (ports.sqliteNativeBinding) setDefaultNativeBinding(ports.sqliteNativeBinding);
  const events = new EventBus();
  const runs = new RunRegistry(events);
  const registry = new RepoRegistry(ports.dataDir);
  // One pool of index readers and one set of repository handles for every domain.
  const repoHandles = new RepoHandles({ dataDir: ports.dataDir, registry, readers: new KbReaders() });
  const policy = ports.policy ?? hostPolicy(ports.host);
  const context: EngineContext = { ports, policy, events, runs, version: packageVersion(), registry, repos: repoHandles };
  // Closed last (disposers run in reverse): the domains use them while they shut down.
  const disposers: Array<() => Promise<void> | void> = [() => registry.close(), () => repoHandles.closeAll()];
  // Worktrees left by a process that was killed (no `finally` ran); live ones are kept.
  const orphanSweep = cleanupOrphanWorktrees(worktreesDir(ports.dataDir)).catch(() => undefined);
  // Commits our checkouts kept (a solve run's snapshot of uncommitted changes) stay readable: review reads them.
  readObjectsFrom(keptObjectsDir(worktreesDir(ports.dataDir)));
  disposers.push(() => orphanSweep.then(() => undefined));
  const llm = createModelServices({ dataDir: ports.dataDir, events });
  disposers.push(() => llm.dispose());
  // The one embedder: the embedded model in a worker thread (started on first use), for search, chat, summaries and eval.
  const embedder = createBackgroundEmbedder();
  disposers.push(() => embedder.dispose());
  // Every run gets a row in a raw DB's task_runs (the repository's, else the data folder's).
  runs.recordTo(new RawRunJournal(ports.dataDir, () => llm.callLog.database(), (repoId) => repoHandles.sharedRaw(repoId)));
  // The app's hosts show the model server in the status bar (and may start it); the CLI checks on demand.
  if (policy.checkModelServerAtStart) void llm.lifecycle.check().catch(() => undefined);
  // Applies a killed process left half-done are finished or rolled back before anything reads the trees.
  const repos = new RepoService(context, options, (list) => recoverApplies(list, (message) => console.error(`[review] ${message}`)));
  disposers.push(() => repos.dispose());
  const search = createSearchDomain(context, embedder);
  disposers.push(() => search.dispose());
  // Chat, solve and the other domains of lazyDomains.ts are built (their modules loaded) on the
  // first request for one of their keys; summaries follows embedding runs, so it starts now.
  let chat: Promise<ChatDomain> | undefined;
  const chatDomain = () => (chat ??= domainModules.chat().then((m) => m.createChatDomain(context, llm, embedder)));
  disposers.push(async () => (await chat?.catch(() => undefined))?.dispose());
  let solveRuns: Promise<PlansRunsDomain> | undefined;
  const solveDomain = () => (solveRuns ??= domainModules.plansRuns().then((m) => m.createPlansRunsDomain(context, llm)));
  const solve: Pick<PlansRunsDomain, 'diffs'> = { diffs: async (repoId, runId) => (await solveDomain()).diffs(repoId, runId) };
  const summaries = createSummariesDomain(context, llm, () => embedder);
  disposers.push(() => summaries.dispose());

  const handlers: Handlers = {
    ...createAppHandlers(context),
    ...lazyHandlers(DOMAIN_KEYS.models, async () => (await domainModules.models()).createModelsHandlers(context, llm)),
    ...lazyHandlers(DOMAIN_KEYS.modelSetup, async () => (await domainModules.modelSetup()).createSetupHandlers(context, llm)),
    ...lazyHandlers(DOMAIN_KEYS.logs, async () => (await domainModules.logs()).createLogsHandlers(context, llm)),
    ...createConfigHandlers(context, llm),
    ...createRepoHandlers(repos, runs),
    ...lazyHandlers(DOMAIN_KEYS.eval, async () => (await domainModules.eval()).createEvalHandlers(context, embedder)),
    ...search.handlers,
    ...lazyHandlers(DOMAIN_KEYS.chat, async () => (await chatDomain()).handlers),
    ...lazyHandlers(DOMAIN_KEYS.plans, async () => (await domainModules.plans()).createPlansHandlers(context, llm)),
    ...lazyHandlers(DOMAIN_KEYS.retrieval, async () => (await domainModules.retrieval()).createRetrievalHandlers(context, llm)),
    // Review reads a solve run's diffs: the cumulative change against the commit the run started from.
    ...lazyHandlers(DOMAIN_KEYS.review, async () =>
      (await domainModules.review()).createReviewHandlers(context, async (repoId, runId) => {
        const diffs = await solve.diffs(repoId, runId);
        return {
          baseCommit: diffs.startCommit,
          diff: diffs.cumulative,
          steps: diffs.steps.map((s) => ({ id: `${s.sequence}`, label: s.stepId ? `Part ${s.partId ?? '-'} · step ${s.stepId}` : `Pass ${s.sequence}`, diff: s.diff })),
        };
      }),
    ),
    ...lazyHandlers(DOMAIN_KEYS.plansRuns, async () => (await solveDomain()).handlers),
    ...summaries.handlers,
    ...lazyHandlers(DOMAIN_KEYS.enrich, async () => (await domainModules.enrich()).createEnrichHandlers(context, llm)),
    ...lazyHandlers(DOMAIN_KEYS.training, async () => (await domainModules.training()).createTrainingHandlers(context, llm)),
  };

  return {
    handlers,
    events,
    runs,
    context,
    solve,
    async dispose() {
      runs.cancelAll();
      for (const dispose of disposers.reverse()) await dispose();
    },
  };
}
