import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PLAN_JSON_SCHEMA, type Plan } from '../../../shared/contract/plans';
import { parseToml, validateConfig } from '../../platform/config/load';
import type { Db } from '../../platform/db/open';
import { openRawDatabase } from '../../platform/db/raw';
import { LlmClient } from '../../platform/llm/client';
import { ModelRouter } from '../../platform/llm/router';
import { RawCallLog } from '../../platform/logs/callLog';
import { createRetrievalFixture, type RetrievalFixture } from '../../testing/retrievalFixture';
import { RawDecisionLog } from '../retrieval/decisionLog';
import { OllamaTestServer } from '../../testing/ollamaTestServer';
import { createPlan, PlanInvalidError } from './plan';
import { listPlans, loadPlan, savePlan } from './planStore';
import { GOOD_PLAN } from '../../testing/plans';

let fx: RetrievalFixture;
let server: OllamaTestServer;
let raw: Db;
let llm: LlmClient;
let dataDir: string;
const TASK = 'Make tokenize in calc/tokenizer.py keep newline tokens, through a new calc/lexer.py';


/** The plan prompts the server saw, in order. */
const planPrompts = () =>
  server.requests
    .filter((r) => r.path === '/api/chat')
    .map((r) => r.body as { messages: Array<{ role: string; content: string }>; format?: unknown })
    .filter((b) => b.messages.at(-1)!.content.startsWith('## Task'));

beforeAll(async () => {
  [fx, server] = await Promise.all([createRetrievalFixture(), OllamaTestServer.start()]);
  server.install('qwen3:0.6b');
  dataDir = mkdtempSync(join(tmpdir(), 'cra-plan-'));
}, 60_000);
afterAll(async () => {
  fx.cleanup();
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
});
beforeEach(() => {
  server.script.chat = [];
  server.requests.length = 0;
  raw = openRawDatabase(':memory:');
  const toml = `[models]\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\nbase_url = "${server.url}"\n`;
  const router = new ModelRouter({ values: validateConfig(parseToml(toml, 't'), 't'), files: ['t'], primaryFile: 't' });
  llm = new LlmClient({ router: () => router, log: new RawCallLog(raw), retry: { attempts: 1 } });
  // Task analysis (enrichment) is answered by its prompt; the plan calls take the scripted queue.
  server.script.respond = (prompt) => (prompt.startsWith('Task:') ? { json: { intent: 'keep newlines', files: ['calc/tokenizer.py'], symbols: ['tokenize'], concepts: ['lexing'] } } : undefined);
});

const plan = () => createPlan({ kb: fx.kb, repoId: 'calc', task: TASK, llm, runId: 'run-1' });

describe('createPlan', () => {
  it('returns a valid plan first time, asking for structured output at stage plan, with the scope in the prompt; saved and listed', async () => {
    server.script.chat.push({ json: GOOD_PLAN });
    const artifact = await plan();
    expect(artifact).toMatchObject({ repoId: 'calc', task: TASK, model: 'qwen3:0.6b', version: 1, attempts: 1, runId: 'run-1', plan: GOOD_PLAN });
    expect(artifact.id).toMatch(/^p-\d{8}T\d{6}-[0-9a-f]{6}$/);
    expect(artifact.contextFiles[0]).toBe('calc/tokenizer.py');
    const [call] = planPrompts();
    expect(call!.format).toEqual(PLAN_JSON_SCHEMA);
    expect(call!.messages.at(-1)!.content).toContain('### calc/tokenizer.py (python)');
    expect(call!.messages.at(-1)!.content).toContain('tokenize(text)');
    const stages = (raw.prepare('select stage from model_calls order by id').all() as Array<{ stage: string }>).map((r) => r.stage);
    expect(stages).toEqual(['task_analysis', 'plan']);

    const file = savePlan(dataDir, artifact);
    expect(readdirSync(join(dataDir, 'repos', 'calc', 'plans'))).toEqual([`${artifact.id}.json`]);
    expect(file.endsWith(`${artifact.id}.json`)).toBe(true);
    expect(loadPlan(dataDir, 'calc', artifact.id)).toEqual(artifact);
    expect(listPlans(dataDir, 'calc').plans).toEqual([{ id: artifact.id, task: TASK, taskSummary: GOOD_PLAN.task_summary, createdAt: artifact.createdAt, model: 'qwen3:0.6b', version: 1, files: 3 }]);
    expect(() => loadPlan(dataDir, 'calc', 'p-none')).toThrow(/No plan p-none/);
  });

  it('reads a plan after a thinking block and before trailing prose with braces (a server ignoring format)', async () => {
    server.script.chat.push({ thinking: 'The lexer {first}, then…', text: `Here is the plan:\n\`\`\`json\n${JSON.stringify(GOOD_PLAN, null, 1)}\n\`\`\`\nThis keeps {newlines} intact.` });
    const artifact = await plan();
    expect(artifact.plan).toEqual(GOOD_PLAN);
    expect(artifact.attempts).toBe(1);
  });

  it('retries an invalid plan once with its errors in the prompt, and keeps the corrected one', async () => {
    const bad: Plan = {
      ...GOOD_PLAN,
      affected_files: [
        { path: 'calc/missing.py', role: 'modify', changes: [{ symbol: 'f', action: 'modify', description: 'Change it:\n```python\nreturn 1\n```', depends_on: [], depended_by: [] }] },
      ],
      execution_order: ['calc/missing.py'],
    };
    server.script.chat.push({ json: bad }, { json: GOOD_PLAN });
    const artifact = await plan();
    expect(artifact.attempts).toBe(2);
    expect(artifact.plan).toEqual(GOOD_PLAN);
    const retry = planPrompts()[1]!.messages.at(-1)!.content;
    expect(retry).toContain('## It was invalid');
    expect(retry).toContain('- affected_files[0] (calc/missing.py): the file is not in the repository; use a path from the repository, or role create for a new file');
    expect(retry).toContain('- affected_files[0] (calc/missing.py).changes[0].description contains a code block');
  });

  it('fails after two invalid replies, naming the last problems (an unparseable reply and a shape error)', async () => {
    server.script.chat.push({ text: 'I would change the tokenizer.' }, { text: '{"task_summary": "x", "affected_files": [], "execution_order": [], "rationale": "r"}' });
    const error = await plan().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlanInvalidError);
    expect((error as PlanInvalidError).errors).toEqual(['affected_files: affected_files must list at least one file']);
    expect((error as PlanInvalidError).message).toContain("The model's plan was invalid 2 times; last problems:\n  - affected_files: affected_files must list at least one file");
    expect(planPrompts()[1]!.messages.at(-1)!.content).toContain('- the reply has no complete JSON object');
  });

  it('refuses a dependency cycle twice and fails naming the cycle', async () => {
    const cyclic: Plan = {
      ...GOOD_PLAN,
      affected_files: [
        { path: 'calc/tokenizer.py', role: 'modify', changes: [{ symbol: 'tokenize', action: 'modify', description: 'Use the parser.', depends_on: ['calc/parser.py:Parser'], depended_by: [] }] },
        { path: 'calc/parser.py', role: 'modify', changes: [{ symbol: 'Parser', action: 'modify', description: 'Use the tokenizer.', depends_on: ['calc/tokenizer.py:tokenize'], depended_by: [] }] },
      ],
      execution_order: ['calc/tokenizer.py', 'calc/parser.py'],
    };
    server.script.chat.push({ json: cyclic }, { json: cyclic });
    await expect(plan()).rejects.toThrow(/dependency cycle: calc\/tokenizer\.py → calc\/parser\.py → calc\/tokenizer\.py/);
  });

  it('with a judged scope, keeps the seeds unjudged and only the judged yeses, and logs the scope decisions', async () => {
    const analysis = server.script.respond!;
    // The judge says yes to the changelog (a co-change neighbour) and no to everything else; the
    // search's hits (evaluator.py among them) are seeds, kept unjudged.
    server.script.respond = (prompt) => (/path: /.test(prompt) ? { json: { answer: /path: docs\/CHANGELOG\.md/.test(prompt) ? 'yes' : 'no' } } : analysis(prompt));
    server.script.chat.push({ json: GOOD_PLAN });
    // Five search seeds: the default 20 would take every file of this small fixture as a seed.
    const artifact = await createPlan({ kb: fx.kb, repoId: 'calc', task: TASK, llm, runId: 'run-2', judgeScope: true, decisions: new RawDecisionLog(raw), maxContextFiles: 20, scope: { searchSeeds: 5 } });
    const rows = raw.prepare("select subject, tier, decision from retrieval_decisions where run_id = 'run-2' and stage = 'scope'").all() as Array<{ subject: string; tier: string; decision: string }>;
    expect(rows).toContainEqual({ subject: 'calc/evaluator.py', tier: '1', decision: 'included' });
    expect(rows).toContainEqual({ subject: 'docs/CHANGELOG.md', tier: '3', decision: 'included' });
    expect(rows).toContainEqual({ subject: 'calc/units.py', tier: '3', decision: 'excluded' });
    expect(artifact.contextFiles).toEqual(rows.filter((r) => r.decision === 'included').map((r) => r.subject));
    expect(planPrompts()[0]!.messages.at(-1)!.content).toContain('### docs/CHANGELOG.md');
    expect(planPrompts()[0]!.messages.at(-1)!.content).not.toContain('### calc/units.py');
  });
});
