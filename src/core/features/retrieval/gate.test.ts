import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contextPackageIsCoherent } from '../../testing/packageCoherence';
import type { Db } from '../../platform/db/open';
import { openRawDatabase } from '../../platform/db/raw';
import type { LlmClient } from '../../platform/llm/client';
import type { ScriptedReply } from '../../testing/ollamaTestServer';
import { loopbackClient, useRetrievalHarness } from '../../testing/retrievalHarness';
import { RawDecisionLog } from './decisionLog';
import { DEFAULT_SAFETY_MARGIN, estimateTokens, renderMarkdown } from './package';
import { retrieve } from './pipeline';
import type { StageName } from './pipeline';
import { scopeCandidates } from './stages/scope';
import { analyzeTask } from './taskAnalysis';

// The gate criteria (docs/design.md, Retrieval gate criteria) not covered elsewhere:
// 2 seeds always in scope, 3 direct neighbours of seeds, 4 the budget over random runs of the
// whole pipeline, 5 a coherent package, 6 a raw decision for every file considered per tier.
// (1: retrieveCommand.test.ts; 7 and 8: pipeline.test.ts — see the report.)

const h = useRetrievalHarness('qwen3:0.6b');
let raw: Db;
let llm: LlmClient;
let sessionsDir: string;
const read = (p: string) => readFileSync(join(h.fx.repo.root, p), 'utf8');
const TASKS = [
  'Fix `tokenize` in calc/tokenizer.py: it drops newline characters',
  'Parser.parse returns the tokens unparsed; make it build a tree',
  'convert feet to meters with more precision',
  'Traceback (most recent call last):\n  File "calc/cli.py", line 5, in main\n  File "calc/evaluator.py", line 6, in evaluate\nValueError: empty expression',
  'format the result of the page with two decimals in web/format.ts',
];

beforeEach(() => {
  raw = openRawDatabase(':memory:');
  llm = loopbackClient(h.server, raw);
  sessionsDir = mkdtempSync(join(tmpdir(), 'cra-gate-'));
});
afterEach(() => {
  raw.close();
  rmSync(sessionsDir, { recursive: true, force: true });
});

/** mulberry32: a seeded generator, so a failing case replays by its seed. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A judge answering at random from `r`, in the forms small models use (many of them default-denies). */
function randomJudge(r: () => number) {
  const forms: ScriptedReply[] = [{ json: { answer: 'yes' } }, { json: { answer: 'no' } }, { text: 'yes' }, { text: 'Yes.' }, { text: '' }, { text: 'no' }, { fault: 'http500' }];
  h.server.script.respond = (prompt) => {
    if (/Tokens left for the other files/.test(prompt)) return { text: r() < 0.5 ? '{"keep": []}' : 'unsure' };
    if (/Optional stages/.test(prompt)) return { text: r() < 0.5 ? '{"stages": ["precision"]}' : 'all of them' };
    return forms[Math.floor(r() * forms.length)];
  };
}

const deps = (runId: string, over: { concurrency?: number } = {}) => ({ kb: h.fx.kb, llm, decisions: new RawDecisionLog(raw), runId, sessionsDir, readSource: read, ...over });

describe('gate 2 and 3: seeds always in scope; their direct import neighbours are candidates', () => {
  it.each(TASKS)('%s', async (text) => {
    h.server.script.respond = () => ({ json: { answer: 'no' } });
    const task = await analyzeTask(text, h.fx.kb, { id: 'g' });
    const candidates = await scopeCandidates(h.fx.kb, task, { searchSeeds: 3 });
    const seeds = candidates.filter((c) => c.tier <= 1);
    expect(seeds.length).toBeGreaterThan(0);
    // Every direct neighbour of a seed is a candidate (tier 1 or 2).
    for (const s of seeds) for (const d of h.fx.kb.getDependencies(s.fileId, 'both')) expect(candidates.find((c) => c.path === d.path)?.tier, `${s.path} → ${d.path}`).toBeLessThanOrEqual(2);
    // A judge that says no to everything and the smallest cap still leave every seed in scope.
    const { result, session } = await retrieve({ task, stages: ['scope'], budgetTokens: 20_000, options: { scope: { searchSeeds: 3, maxCandidates: 1 } } }, deps('g-run'));
    session.close();
    expect(result.context.files.map((f) => f.path).sort()).toEqual(seeds.map((s) => s.path).sort());
  });
});

describe('gate 6: a raw decision for every file considered, per tier', () => {
  it('every scope candidate (judged, seed or over the cap) has its decision with its tier', async () => {
    h.server.script.respond = (prompt) => ({ json: { answer: /path: calc\/parser\.py/.test(prompt) ? 'yes' : 'no' } });
    for (const [i, text] of TASKS.entries()) {
      const task = await analyzeTask(text, h.fx.kb, { id: `g6-${i}` });
      const candidates = await scopeCandidates(h.fx.kb, task, { searchSeeds: 3 });
      const { session } = await retrieve({ task, stages: ['scope', 'precision'], budgetTokens: 20_000, options: { scope: { searchSeeds: 3, maxCandidates: 4 } } }, deps(`g6-run-${i}`));
      session.close();
      const rows = raw.prepare("select subject, tier, decision from retrieval_decisions where run_id = ? and stage = 'scope'").all(`g6-run-${i}`) as Array<{ subject: string; tier: string; decision: string }>;
      expect(rows.map((r) => `${r.subject}@${r.tier}`).sort(), text).toEqual(candidates.map((c) => `${c.path}@${c.tier}`).sort());
      expect(new Set(rows.map((r) => r.decision))).toEqual(new Set(rows.map((r) => r.decision).filter((d) => ['included', 'excluded', 'over-cap'].includes(d))));
    }
  });
});

describe('gate 4 and 5: random runs of the whole pipeline', () => {
  it('never exceed the budget, and give a coherent package: each item is the lines it names, headers say path:start-end, edges join included files', async () => {
    for (let seed = 1; seed <= 24; seed++) {
      const r = rng(seed);
      randomJudge(r);
      const text = TASKS[seed % TASKS.length] as string;
      const budget = 60 + Math.floor(r() * 3000);
      const stages = [['scope', 'precision'], ['scope', 'similarity', 'precision', 'refilter'], ['routing', 'scope', 'precision', 'similarity'], ['scope', 'refilter']][seed % 4] as StageName[];
      const task = await analyzeTask(text, h.fx.kb, { id: `p${seed}` });
      let done;
      try {
        done = await retrieve({ task, stages, budgetTokens: budget, options: { scope: { searchSeeds: 3 } } }, deps(`p-${seed}`, { concurrency: 1 + (seed % 3) }), raw);
      } catch (error) {
        // Only a budget below the package header's own size may refuse.
        expect((error as Error).message, `seed ${seed}`).toMatch(/cannot hold even the package header/);
        continue;
      }
      done.session.close({ raw, runId: `p-${seed}` });
      const pkg = done.package;
      const context = `seed ${seed}, budget ${budget}, stages ${stages.join(',')}`;
      expect(pkg.budget.used, context).toBeLessThanOrEqual(budget);
      expect(estimateTokens(renderMarkdown(pkg), DEFAULT_SAFETY_MARGIN), context).toBeLessThanOrEqual(budget);
      expect(pkg.taskId).toBe(`p${seed}`);
      expect(contextPackageIsCoherent(pkg, read), context).toEqual([]);
    }
    // The runs went through every kind of call: binary judgments, routing and the re-filter, and failed calls.
    const stages = raw.prepare('select distinct stage from model_calls').pluck().all();
    expect(stages).toEqual(expect.arrayContaining(['scope', 'similarity', 'precision_pass1', 'routing', 'refilter']));
    expect(raw.prepare('select count(*) from model_calls where error_code is not null').pluck().get()).toBeGreaterThan(0);
  }, 120_000);
});
