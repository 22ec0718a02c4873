import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRawDatabase } from '../../platform/db/raw';
import { RawDecisionLog, type DecisionRecord, type DecisionSink } from './decisionLog';
import { runPipeline, type RetrievalStage } from './stage';

const stage = (name: string, n: number): RetrievalStage => ({
  name,
  run: async (context) => ({ ...context, decisions: Array.from({ length: n }, (_, i) => ({ subjectKind: 'file' as const, subject: `${name}-${i}.py`, decision: 'included', reasons: [] })) }),
});

describe('decisions of a stage written together', () => {
  it('the runner hands a sink that can take them all at once each stage’s decisions in one call', async () => {
    const batches: DecisionRecord[][] = [];
    const sink: DecisionSink = {
      record: () => {
        throw new Error('one by one');
      },
      recordAll: (ds) => void batches.push([...ds]),
    };
    await runPipeline({ stages: [stage('scope', 3), stage('precision', 2)], kb: {} as never, task: {} as never, llm: {} as never, runId: 'r1', budgetTokens: 100, decisions: sink });
    expect(batches.map((b) => b.map((d) => `${d.stage}:${d.subject}`))).toEqual([['scope:scope-0.py', 'scope:scope-1.py', 'scope:scope-2.py'], ['precision:precision-0.py', 'precision:precision-1.py']]);
    expect(batches.flat().every((d) => d.runId === 'r1')).toBe(true);
  });

  it('RawDecisionLog writes a batch in one transaction: all of it or, when one row fails, none', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cra-decisions-'));
    const raw = openRawDatabase(join(dir, 'raw.sqlite'));
    try {
      const log = new RawDecisionLog(raw);
      const d = (subject: string): DecisionRecord => ({ runId: 'r', stage: 'scope', subjectKind: 'file', subject, decision: 'included', reasons: [] });
      log.recordAll([d('a.py'), d('b.py')]);
      expect(raw.prepare('select subject from retrieval_decisions order by id').pluck().all()).toEqual(['a.py', 'b.py']);
      // A subject that is not text cannot be bound: the whole batch is rolled back.
      expect(() => log.recordAll([d('c.py'), { ...d('x'), subject: {} as never }])).toThrow();
      expect(raw.prepare('select count(*) from retrieval_decisions').pluck().get()).toBe(2);
    } finally {
      raw.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
