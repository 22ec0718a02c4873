/**
 * Test support for the solve orchestrator: a small JavaScript repository whose tests run with
 * `node --test`, indexed into a real curated SQLite file, and a responder for the loopback model
 * server that answers each pass by its prompt (`## Pass: <type>`, the part, the current step).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MetaPlan, PartPlan, PlanAdjustment } from '../../shared/contract/plansRuns';
import { createExtractor } from '../knowledge/indexer/extract/extractor';
import { indexRepository } from '../knowledge/indexer/indexer';
import { createTestRepo, type TestRepo } from './gitRepo';
import type { ScriptedReply } from './testServerTypes';

/** The fixture's files at its one commit. */
export const SOLVE_FILES: Record<string, string> = {
  'lib/math.js': 'function add(a, b) {\n  return a + b;\n}\n\nmodule.exports = { add };\n',
  'lib/format.js': "const { add } = require('./math');\n\nfunction formatSum(a, b) {\n  return `${a} + ${b} = ${add(a, b)}`;\n}\n\nmodule.exports = { formatSum };\n",
  'test/math.test.js': "const test = require('node:test');\nconst assert = require('node:assert');\nconst math = require('../lib/math');\n\ntest('add', () => {\n  assert.strictEqual(math.add(2, 3), 5);\n});\n",
  'README.md': '# Tiny math\n',
};

/** The indexed fixture. */
export interface SolveFixture {
  repo: TestRepo;
  dataDir: string;
  curatedFile: string;
  cleanup(): void;
}

/** Build, commit and index the fixture; `dataDir` is a fresh data folder. */
export async function createSolveFixture(): Promise<SolveFixture> {
  const repo = createTestRepo({ prefix: 'cra-solve-' });
  repo.writeFiles(SOLVE_FILES);
  repo.commit('tiny math');
  const dataDir = mkdtempSync(join(tmpdir(), 'cra-solve-data-'));
  const curatedFile = join(dataDir, 'curated.sqlite');
  const extractor = await createExtractor();
  try {
    await indexRepository({ root: repo.root, curatedFile, extractor: async () => extractor });
  } finally {
    extractor.dispose();
  }
  return {
    repo,
    dataDir,
    curatedFile,
    cleanup() {
      repo.cleanup();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A search/replace block as a coding model writes it. */
export const block = (path: string, search: string, replace: string) => `${path}\n\`\`\`js\n<<<<<<< SEARCH\n${search}\n=======\n${replace}\n>>>>>>> REPLACE\n\`\`\`\n`;

/** What the scripted model answers, per pass; a function of the attempt (1-based) when replies differ per attempt. */
export interface SolveScript {
  metaPlan?: MetaPlan | string;
  partPlans?: Record<string, PartPlan | string>;
  /** Adjustment after `<part>/<step>`; default: the remaining steps unchanged. */
  adjustments?: Record<string, PlanAdjustment | ((remaining: string[]) => PlanAdjustment)>;
  /** Edits for `<part>/<step>`: one reply, or one per attempt (the last repeats). */
  edits: Record<string, string | string[]>;
}

/** The passes the responder saw, in order (`meta_plan`, `part_plan p1`, `implement p1/s1 #1`, `adjustment p1/s1`). */
export interface SolveTranscript {
  passes: string[];
  prompts: Array<{ pass: string; prompt: string }>;
}

const structured = (value: unknown): ScriptedReply => (typeof value === 'string' ? { text: value } : { json: value });

/** A responder for `server.script.respond` that answers the passes from `script`, recording what it saw. */
export function solveResponder(script: SolveScript): { respond: (prompt: string) => ScriptedReply | undefined; transcript: SolveTranscript } {
  const transcript: SolveTranscript = { passes: [], prompts: [] };
  const attempts = new Map<string, number>();
  const respond = (prompt: string): ScriptedReply | undefined => {
    const type = /^## Pass: (\w+)/.exec(prompt)?.[1];
    if (!type) return undefined;
    const part = /^## Part (\S+?):/m.exec(prompt)?.[1] ?? /^Part (\S+?):/m.exec(prompt)?.[1] ?? '';
    const record = (pass: string) => {
      transcript.passes.push(pass);
      transcript.prompts.push({ pass, prompt });
    };
    if (type === 'meta_plan') {
      record('meta_plan');
      return structured(script.metaPlan);
    }
    if (type === 'part_plan') {
      record(`part_plan ${part}`);
      return structured(script.partPlans?.[part]);
    }
    if (type === 'adjustment') {
      const done = [...prompt.slice(prompt.indexOf('## Steps done'), prompt.indexOf('## Remaining steps')).matchAll(/^- \[(\S+)\]/gm)].map((m) => m[1]!);
      const after = done.at(-1) ?? '';
      const remainingText = prompt.slice(prompt.indexOf('## Remaining steps'), prompt.indexOf('Reply with the remaining steps'));
      const remaining = [...remainingText.matchAll(/^- \[(\S+)\] ([^\n]*?)(?: \(files: ([^)]*)\))?$/gm)].map((m) => ({ id: m[1]!, description: m[2]!, files: m[3] ? m[3].split(', ') : [] }));
      record(`adjustment ${part}/${after}`);
      const scripted = script.adjustments?.[`${part}/${after}`];
      const value = typeof scripted === 'function' ? scripted(remaining.map((r) => r.id)) : (scripted ?? { rationale: 'no change', remaining_steps: remaining.map((r) => ({ ...r, expected_outcome: '' })) });
      return structured(value);
    }
    if (type === 'implement') {
      const step = /^## Current step\n- \[(\S+)\]/m.exec(prompt)?.[1] ?? '';
      const key = `${part}/${step}`;
      const attempt = (attempts.get(key) ?? 0) + 1;
      attempts.set(key, attempt);
      record(`implement ${key} #${attempt}`);
      const edits = script.edits[key];
      const reply = Array.isArray(edits) ? edits[Math.min(attempt, edits.length) - 1] : edits;
      return { text: reply ?? 'I cannot do this step.' };
    }
    return undefined;
  };
  return { respond, transcript };
}

/** A two-part task on the fixture: p2 (listed first) depends on p1. */
export const META: MetaPlan = {
  task_summary: 'Add multiplication and its formatting',
  parts: [
    { id: 'p2', title: 'Format products', description: 'formatProduct in lib/format.js', files: ['lib/format.js'], depends_on: ['p1'] },
    { id: 'p1', title: 'Multiply', description: 'mul in lib/math.js with a test', files: ['lib/math.js'], depends_on: [] },
  ],
};
export const P1 = { steps: [
  { id: 's1', description: 'Add mul to lib/math.js and export it', files: ['lib/math.js'], expected_outcome: '' },
  { id: 's2', description: 'Test mul in test/math.test.js', files: ['test/math.test.js'], expected_outcome: '' },
], rationale: 'code then test' };
export const P2 = { steps: [{ id: 's1', description: 'Add formatProduct to lib/format.js', files: ['lib/format.js'], expected_outcome: '' }], rationale: 'one step' };
export const MUL = block('lib/math.js', 'function add(a, b) {\n  return a + b;\n}\n\nmodule.exports = { add };', 'function add(a, b) {\n  return a + b;\n}\n\nfunction mul(a, b) {\n  return a * b;\n}\n\nmodule.exports = { add, mul };');
export const MUL_TEST = block('test/math.test.js', "test('add', () => {\n  assert.strictEqual(math.add(2, 3), 5);\n});", "test('add', () => {\n  assert.strictEqual(math.add(2, 3), 5);\n});\n\ntest('mul', () => {\n  assert.strictEqual(math.mul(2, 3), 6);\n});");
export const FORMAT = block('lib/format.js', "const { add } = require('./math');", "const { add, mul } = require('./math');\n\nfunction formatProduct(a, b) {\n  return `${a} * ${b} = ${mul(a, b)}`;\n}");
export const TWO_PARTS: SolveScript = { metaPlan: META, partPlans: { p1: P1, p2: P2 }, edits: { 'p1/s1': MUL, 'p1/s2': MUL_TEST, 'p2/s1': FORMAT } };

