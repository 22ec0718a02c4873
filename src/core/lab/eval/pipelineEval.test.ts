import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvalReport, EvalTaskResult } from '../../../shared/contract/eval';
import { openRawDatabase } from '../../platform/db/raw';
import { runGitSync } from '../../platform/git';
import { indexRepository } from '../../knowledge/indexer/indexer';
import { createExtractor } from '../../knowledge/indexer/extract/extractor';
import { createImportResolver } from '../../knowledge/indexer/extract/resolve';
import { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';
import { loopbackClient } from '../../testing/retrievalHarness';
import { OllamaTestServer } from '../../testing/ollamaTestServer';
import { buildFixtureRepo, FIXTURE_MISS } from '../../testing/fixtureRepo';
import { formatReport } from '../../../shared/evalFormat/format';
import { changedLines, parseHunks } from './goldLines';
import { mineTasks } from './mine';
import { goldTruth, itemOf, oracleJudge } from './pipelineJudges';
import { describeGroup } from '../../features/retrieval/stages/precision';
import { median } from './pipelineSummary';
import { productRetrieval } from './product';
import { runEval } from './run';
import { packageMiss, type PipelineEvalOptions } from './pipelineTask';

let root: string;
let repo: string;
const budget = { contextWindow: 32768, reservedTokens: 4096 };

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'cra-pipeval-'));
  repo = buildFixtureRepo(join(root, 'repo'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function evaluate(pipeline: PipelineEvalOptions, label: string): Promise<EvalReport> {
  const { tasks } = await mineTasks({ repoPath: repo });
  return runEval({ repoPath: repo, tasks, source: { kind: 'file', file: 'mined' }, ks: [1, 5, 10], workDir: join(root, `work-${label}`), worktreesDir: join(root, 'worktrees'), retrieval: productRetrieval(), pipeline });
}

const byTask = (report: EvalReport, text: string) => report.tasks.find((t) => t.task.startsWith(text)) as EvalTaskResult;

describe('changed lines of a gold file', () => {
  it('reads hunks of the parent side: changed lines, and an insertion as the two lines around it', () => {
    const diff = ['diff --git a/x.py b/x.py', '--- a/x.py', '+++ b/x.py', '@@ -3,2 +3,2 @@ def f():', '-a', '+b', '@@ -10 +10 @@', '@@ -20,0 +21,3 @@', '--- /dev/null', '+++ b/new.py', '@@ -0,0 +1 @@'].join('\n');
    expect(parseHunks(diff)).toEqual(new Map([['x.py', [{ start: 3, end: 4 }, { start: 10, end: 10 }, { start: 20, end: 21, insertedAfter: 20 }]]]));
  });
});

describe('why a gold candidate is not in the package', () => {
  it('names precision keeping none of its symbols (judged and past the caps), the budget, or scope', () => {
    const d = (stage: string, subject: string, decision: string) => ({ runId: 'r', stage, subjectKind: 'symbol' as const, subject, decision, reasons: [] });
    const decisions = [d('scope', 'a.py', 'included'), d('precision_pass1', 'a.py:f', 'excluded'), d('precision_group', 'a.py:g', 'excluded'), d('precision_group', 'a.py:h', 'excluded'), d('precision', 'a.py', 'excluded')];
    expect(packageMiss('a.py', decisions, [])).toEqual(['precision: no symbol kept (1 judged one by one, 2 in groups past the symbol caps)']);
    expect(packageMiss('b.py', [d('scope', 'b.py', 'excluded')], [])).toEqual(['scope: judged not needed']);
    expect(packageMiss('c.py', [], [{ path: 'c.py' }])).toEqual(['budget: 1 item(s) dropped']);
  });
});

describe('the oracle judge', () => {
  it('knows the symbols a commit changed: the innermost one, the nearest for a module-level change, all without a commit', async () => {
    const { tasks } = await mineTasks({ repoPath: repo });
    const cache = tasks.find((t) => t.task.startsWith('Cache route lookups'))!;
    const expiry = tasks.find((t) => t.task.startsWith('Reject expired'))!;
    const dir = join(root, 'oracle-index');
    const worktree = join(root, 'oracle-checkout');
    runGitSync(['worktree', 'add', '--detach', worktree, cache.parent], { cwd: repo });
    try {
      await indexRepository({
        root: worktree,
        curatedFile: join(dir, 'curated.sqlite'),
        extractor: () => createExtractor(),
        resolver: (files, readFile) => {
          const r = createImportResolver({ files, readFile });
          return (from, imp, language) => r.resolve(from, imp, language);
        },
      });
      const kb = KnowledgeBase.open(join(dir, 'curated.sqlite'), 'fx');
      try {
        const truth = goldTruth(kb, cache.gold, await changedLines(repo, cache.parent, cache.commit!, cache.gold));
        const names = (path: string) => kb.getSymbolsForFile(kb.getFileByPath(path)!.id).filter((s) => truth.symbols.get(path)!.some((x) => x.start === s.startLine && x.end === s.endLine)).map((s) => s.qualifiedName);
        // dispatch's body changed; put() is inserted after Cache.get, the method (not the whole class) is touched.
        expect(names('src/app/routing.py')).toEqual(['dispatch']);
        expect(names('src/app/cache.py')).toEqual(['Cache.get']);
        expect(truth.nearest).toEqual([]);
        const judge = oracleJudge(truth);
        const ask = (stage: string, doc: string) => judge({ stage } as never, doc).then((j) => j.verdict);
        const dispatch = kb.searchSymbolsByName('dispatch', 1)[0]!;
        const route = kb.searchSymbolsByName('route', 1)[0]!;
        expect(await ask('scope', 'path: src/app/routing.py\nlanguage: python')).toBe('yes');
        expect(await ask('scope', 'path: src/app/util.py\nlanguage: python')).toBe('no');
        expect(await ask('precision_pass2', `symbol: dispatch (function)\nfile: src/app/routing.py:${dispatch.startLine}-${dispatch.endLine}`)).toBe('yes');
        expect(await ask('precision_pass1', `symbol: route (function)\nfile: src/app/routing.py:${route.startLine}-${route.endLine}`)).toBe('no');
        // A group past the caps is a yes when it holds a gold symbol, as describeGroup lists them.
        const asCandidate = (s: typeof route) => ({ symbol: s, file: { fileId: s.fileId, path: s.path, tier: 1, reasons: [] }, found: [], named: false });
        expect(await ask('precision_group', describeGroup([asCandidate(route), asCandidate(dispatch)]))).toBe('yes');
        expect(await ask('precision_group', describeGroup([asCandidate(route)]))).toBe('no');
        await expect(ask('similarity', 'a|b')).rejects.toThrow(/cannot tell which item a similarity judgment/);
        // Without a commit, every symbol of a gold file is gold.
        expect(goldTruth(kb, ['src/app/routing.py'], undefined).symbols.get('src/app/routing.py')!.length).toBe(kb.getSymbolsForFile(kb.getFileByPath('src/app/routing.py')!.id).filter((s) => s.parentId === null || s.kind === 'method').length);
        // config.py's change is a new module-level constant: no symbol overlaps it.
        expect(expiry.gold).toContain('src/app/config.py');
      } finally {
        kb.close();
      }
    } finally {
      runGitSync(['worktree', 'remove', '--force', worktree], { cwd: repo });
    }
  });

  it('reads the item from what the judge sees, and refuses a description it cannot read', () => {
    expect(itemOf('scope', 'path: a/b.py\nlanguage: python')).toEqual({ path: 'a/b.py' });
    expect(itemOf('precision_pass3', 'symbol: f (function)\nfile: a/b.py:3-9\nsignature: def f()')).toEqual({ path: 'a/b.py', span: { start: 3, end: 9 } });
    expect(itemOf('precision_group', 'file: a/b.py\nsymbols (2):\n  3-9 f (function): def f()\n  12-20 C (class): class C')).toEqual({ path: 'a/b.py', spans: [{ start: 3, end: 9 }, { start: 12, end: 20 }] });
    expect(() => itemOf('scope', 'file a/b.py')).toThrow(/cannot tell/);
  });

  it('is reachable only from the evaluation: nothing outside src/core/lab/eval imports the eval judges', () => {
    const src = join(__dirname, '..', '..', '..');
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        // Tests are not the product: the host-import scan names these modules in its list.
        else if (/\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name) && !relative(src, path).startsWith(join('core', 'lab', 'eval')) && /pipelineJudges|pipelineTask|pipelineSetup/.test(readFileSync(path, 'utf8'))) offenders.push(relative(src, path));
      }
    };
    walk(src);
    // The eval domain (eval/start, which `cra eval` and the app ask) sets the judges up; nothing else may.
    expect(offenders).toEqual([join('core', 'app', 'domains', 'eval.ts')]);
  });
});

describe('cra eval --pipeline on the fixture history', () => {
  it('oracle: gold files among the candidates and in the package, judgments counted, misses explained', async () => {
    const report = await evaluate({ judge: 'oracle', budget }, 'oracle');
    const cache = byTask(report, 'Cache route lookups').pipeline!;
    expect(cache.judge).toBe('oracle');
    expect(cache.candidateRecall).toBe(1);
    expect(cache.packageRecall).toBe(1);
    // Function level: the oracle keeps the gold symbols, so the package holds every gold unit.
    expect(cache.functionRecall).toBe(1);
    expect(cache.gold['src/app/routing.py']).toMatchObject({ inPackage: true });
    expect(cache.judgments).toBeGreaterThan(cache.scopeJudgments);
    expect(cache.packageTokens).toBeGreaterThan(0);
    expect(cache.packageTokens).toBeLessThanOrEqual(budget.contextWindow - budget.reservedTokens);
    // A task whose words are in no file: no seed, so no candidate, and the report says why.
    const miss = byTask(report, FIXTURE_MISS).pipeline!;
    expect(miss.candidateRecall).toBe(0);
    expect(miss.functionRecall).toBe(0);
    expect(miss.gold['src/app/logging_setup.py']!.tier).toBeNull();
    expect(miss.gold['src/app/logging_setup.py']!.miss!.join(' ')).toMatch(/tier 1: (not in the search's top|search rank)/);
    const s = report.pipeline!;
    expect(s).toMatchObject({ judge: 'oracle', budget: 28672, tasks: report.tasks.length });
    expect(s.candidateRecallMean).toBeGreaterThan(0);
    expect(s.candidateRecallMean).toBeLessThan(1);
    expect(s.judgmentsMedian).toBe(median(report.tasks.map((t) => t.pipeline!.judgments)));
    const functionRecalls = report.tasks.map((t) => t.pipeline!.functionRecall!);
    expect(s.functionRecallMean).toBeCloseTo(functionRecalls.reduce((a, b) => a + b, 0) / functionRecalls.length, 3);
    const text = formatReport(report);
    expect(text).toMatch(/Pipeline \(oracle judge, budget 28672 tokens\) over 5 task\(s\): candidate recall/);
    expect(text).toMatch(/package recall \d\.\d{3} \(functions \d\.\d{3}\)/);
    expect(text).toMatch(/Gold files the pipeline missed: \d+/);
    expect(text).toMatch(/src\/app\/logging_setup\.py: not a candidate: tier 1/);
  });

  it('yes: every candidate is kept, so the package holds every candidate with symbols or text', async () => {
    const report = await evaluate({ judge: 'yes', budget }, 'yes');
    for (const t of report.tasks) {
      const p = t.pipeline!;
      // Every gold candidate reaches the package when nothing is refused.
      for (const g of Object.values(p.gold)) if (g.tier !== null) expect(g.inPackage).toBe(true);
      expect(p.packageRecall).toBe(p.candidateRecall);
    }
  });

  it('model: every judgment is a call to the configured model at the loopback server', async () => {
    const server = await OllamaTestServer.start();
    const raw = openRawDatabase(join(root, 'raw.sqlite'));
    try {
      server.install('qwen3:0.6b');
      // A judge that says yes only about routing.py and its symbols; its other answers are prose, which the strict reading denies.
      server.script.respond = (prompt) => ({ text: /src\/app\/routing\.py/.test(prompt) ? ' YES\n' : 'no, because it is unrelated' });
      const report = await evaluate({ judge: 'model', budget, llm: loopbackClient(server, raw) }, 'model');
      const calls = server.requests.filter((r) => r.path === '/api/chat').length;
      expect(calls).toBe(report.tasks.reduce((n, t) => n + t.pipeline!.judgments, 0));
      expect(calls).toBeGreaterThan(0);
      expect(byTask(report, 'Cache route lookups').pipeline!.gold['src/app/routing.py']!.inPackage).toBe(true);
    } finally {
      raw.close();
      await server.close();
    }
  });
});
