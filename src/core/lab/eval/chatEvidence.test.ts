import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvalReport } from '../../../shared/contract/eval';
import { sharedDefaultEmbedder } from '../../knowledge/search/search';
import { chatEvidenceSummary } from './chatEvidence';
import { buildFixtureRepo, FIXTURE_MISS, FIXTURE_TASKS } from '../../testing/fixtureRepo';
import { formatReport } from '../../../shared/evalFormat/format';
import { mineTasks } from './mine';
import { productRetrieval } from './product';
import { runEval } from './run';

/*
 * `cra eval --chat-evidence` on the fixture history: each task's text asked as a chat question (BM25
 * route, the default pipeline and its budget), the evidence compared with the gold files, the step
 * that lost a gold file named, and the search's recall beside it in the same report.
 */

let root: string;
let repo: string;
let report: EvalReport;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cra-chatev-'));
  repo = buildFixtureRepo(join(root, 'repo'));
  const { tasks } = await mineTasks({ repoPath: repo });
  report = await runEval({
    repoPath: repo,
    tasks,
    source: { kind: 'file', file: 'mined' },
    ks: [1, 5, 10],
    workDir: join(root, 'work'),
    worktreesDir: join(root, 'worktrees'),
    retrieval: productRetrieval(),
    chatEvidence: { mode: 'bm25', embedder: sharedDefaultEmbedder() },
  });
}, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const byTask = (text: string) => report.tasks.find((t) => t.task.startsWith(text.split('\n')[0]!))!;

describe('cra eval --chat-evidence', () => {
  it('measures every task: a gold file is sent, or the step that lost it is named; all-gold and the fraction agree with the stages', () => {
    expect(report.tasks).toHaveLength(FIXTURE_TASKS.length);
    for (const t of report.tasks) {
      const c = t.chatEvidence!;
      expect(c.error).toBeUndefined();
      expect(c).toMatchObject({ mode: 'BM25', budgetTokens: 4000 });
      expect(Object.keys(c.gold).sort()).toEqual([...t.gold].sort());
      const sent = Object.values(c.gold).filter((g) => g.stage === 'sent').length;
      expect(c.goldFraction).toBeCloseTo(sent / t.gold.length, 3);
      expect(c.allGold).toBe(sent === t.gold.length);
      // Raw evidence within the budget is a subset of what is sent (equal when nothing was condensed).
      if (c.allGoldRaw) expect(c.allGold).toBe(true);
      if (c.budget === 'fits') expect(c.allGoldRaw).toBe(c.allGold);
      // Evidence comes from the search hits and their neighbours: none without a hit.
      expect(c.files > 0).toBe(c.hits > 0);
      expect(c.evidenceTokens).toBeLessThanOrEqual(4000 * 3);
    }
    // A task the search answers: its gold file is a search hit and is sent.
    expect(byTask('Handle a missing Content-Length').chatEvidence!.gold['src/app/server.py']).toEqual({ stage: 'sent', hitRank: 1 });
  });

  it('a gold file the search does not find and no edge reaches is lost at retrieval', () => {
    const miss = byTask(FIXTURE_MISS);
    expect(miss.results.search!.recallAt['10']).toBe(0);
    expect(miss.chatEvidence!.gold['src/app/logging_setup.py']).toEqual({ stage: 'retrieval', hitRank: null });
    expect(miss.chatEvidence!).toMatchObject({ allGold: false, goldFraction: 0, hits: 0, files: 0 });
  });

  it('summarizes beside the search recall of the same run, and prints the table with the lost files', () => {
    const s = report.chatEvidence!;
    expect(s).toMatchObject({ mode: 'bm25', pipeline: 'default', budgetTokens: 4000, tasks: FIXTURE_TASKS.length, errors: 0 });
    const all = report.tasks.filter((t) => t.chatEvidence!.allGold).length;
    expect(s.allGoldRate).toBeCloseTo(all / report.tasks.length, 3);
    expect(s.searchRecallAt10Mean).toBeCloseTo(report.summary.search!.recallAt['10']!, 3);
    const lostFiles = report.tasks.flatMap((t) => Object.values(t.chatEvidence!.gold)).filter((g) => g.stage !== 'sent').length;
    expect(Object.values(s.lost).reduce((a, b) => a + b, 0)).toBe(lostFiles);
    const text = formatReport(report);
    expect(text).toContain('Chat evidence (route bm25, pipeline "default", budget 4000 tokens)');
    expect(text).toContain(`all gold in the evidence ${s.allGoldRate.toFixed(3)}`);
    if (lostFiles > 0) expect(text).toContain(`Gold files not in the evidence: ${lostFiles}`);
  });

  it('counts a task whose assembly failed as one without its gold files', () => {
    const failed = { ...report.tasks[0]!, chatEvidence: { ...report.tasks[0]!.chatEvidence!, allGold: false, goldFraction: 0, error: 'boom' } };
    const s = chatEvidenceSummary({ mode: 'bm25', embedder: sharedDefaultEmbedder() }, { name: 'default', settings: { max_context_tokens: 4000 } } as never, [failed]);
    expect(s).toMatchObject({ tasks: 1, errors: 1, allGoldRate: 0, goldFractionMean: 0 });
  });
});
