/**
 * Test support: the solve fixture and the loopback server for one test file, and `solve()`, which
 * runs executeSolve with the server scripted per pass.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { ConfigValues } from '../platform/config/schema';
import { parseToml, validateConfig } from '../platform/config/load';
import { openRawDatabase } from '../platform/db/raw';
import type { LlmClient } from '../platform/llm/client';
import { OllamaTestServer } from './ollamaTestServer';
import { loopbackClient } from './retrievalHarness';
import { executeSolve, type ExecuteSolveInput } from '../features/plans/solveRun';
import { createSolveFixture, solveResponder, type SolveFixture, type SolveScript } from './solveFixture';
import { repoPaths } from '../platform/layout';

/** The repository id the harness registers the fixture under. */
export const REPO_ID = 'tiny-0001';

/** What the harness fills in before the file's tests run. */
export interface SolveHarness {
  fx: SolveFixture;
  server: OllamaTestServer;
  llm: LlmClient;
  /** The config: loopback models, limits, and (unless `validation` is false) `node --test` as the fixture's validation. */
  config(extra?: string, validation?: boolean): ConfigValues;
  /** Run a solve with the model scripted by `script`. */
  solve(script: SolveScript, input?: Partial<ExecuteSolveInput>): ReturnType<typeof runScripted>;
  /** The fixture's raw DB (close it). */
  raw(): ReturnType<typeof openRawDatabase>;
}

let runs = 0;

async function runScripted(h: SolveHarness, script: SolveScript, input: Partial<ExecuteSolveInput>) {
  const { respond, transcript } = solveResponder(script);
  h.server.script.respond = respond;
  const id = input.solveRunId ?? `solve-t${++runs}`;
  const outcome = await executeSolve({
    dataDir: h.fx.dataDir,
    repo: { id: REPO_ID, path: h.fx.repo.root, curatedFile: h.fx.curatedFile },
    llm: h.llm,
    config: h.config(),
    solveRunId: id,
    taskRunId: `task-${id}-${runs}`,
    task: 'Add mul to lib/math.js with a test, and formatProduct to lib/format.js',
    ...input,
  });
  return { outcome, transcript, id };
}

/** Start the fixture and the server once for the file; a fresh client (calls in memory) before each test. */
export function useSolveHarness(): SolveHarness {
  const h = {} as SolveHarness;
  h.config = (extra = '', validation = true) => {
    const toml = `[models]\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\nbase_url = "${h.server.url}"\n[orchestrator]\nmax_step_attempts = 2\nmax_refinement_loops = 1\n${extra}\n${validation ? `[validation.${REPO_ID}]\ntest = "node --test"\ntimeout_s = 60\n` : ''}`;
    return validateConfig(parseToml(toml, 't'), 't');
  };
  h.solve = (script, input = {}) => runScripted(h, script, input);
  h.raw = () => openRawDatabase(repoPaths(h.fx.dataDir, REPO_ID).raw);
  beforeAll(async () => {
    [h.fx, h.server] = await Promise.all([createSolveFixture(), OllamaTestServer.start()]);
    h.server.install('qwen3:0.6b');
  }, 60_000);
  afterAll(async () => {
    h.fx.cleanup();
    await h.server.close();
  });
  beforeEach(() => {
    h.server.script.chat = [];
    h.server.requests.length = 0;
    h.llm = loopbackClient(h.server, openRawDatabase(':memory:'));
  });
  return h;
}
