import { describe, expect, it } from 'vitest';
import type { ContextPackage, PackageItem, RetrievalJudgment, RetrievalResult, RetrievalSummary, RetrievalVerdict, RunInfo } from '../../../../shared/contract';
import { budgetPercent, detailCounts, filesByTier, inspectionReducers, judgmentCounts, MAX_LIVE_JUDGMENTS, packageJson, stageLabel, unjudgedNote, verdictsFor } from './reducers';

const judgment = (over: Partial<RetrievalJudgment> = {}): RetrievalJudgment => ({ runId: 'retrieve-1', taskId: 't-1', stage: 'scope', subjectKind: 'file', path: 'a.py', item: 'a.py', verdict: 'yes', read: 'json', done: 1, callId: 7, ...over });
const file = (path: string, tier: number) => ({ path, tier, reasons: [], items: [], headerTokens: 3 });
const pkg: ContextPackage = { taskId: 't-1', task: 'x', budget: { tokens: 4000, used: 1000, safetyMargin: 0.1 }, files: [file('b.py', 2), file('a.py', 1), file('c.py', 2), file('d.md', 3)], edges: [], dropped: [] };
const summary = { taskId: 't-1', files: 4 } as RetrievalSummary;

const run = (runId: string): RunInfo<'retrieve'> => ({ runId, kind: 'retrieve', subject: { repoId: 'repo-1', task: 'Fix it' }, title: 'Retrieve', status: 'running', startedAt: 't' });
const result = (taskId: string, markdown: string): RetrievalResult => ({ taskId, package: pkg, summary, markdown, stages: ['scope'], verdicts: [] });

describe('inspection reducers', () => {
  it('keeps the judgments of its own run only, once retrieval/run answered with the run record', () => {
    let i = inspectionReducers.started(inspectionReducers.start('repo-1', 'Fix it'), run('retrieve-1'), 't-1');
    expect(i).toMatchObject({ runId: 'retrieve-1', taskId: 't-1', status: 'running' });
    i = inspectionReducers.judgment(i, judgment({ runId: 'retrieve-other' }));
    expect(i.judgments).toEqual([]);
    i = inspectionReducers.judgment(i, judgment());
    expect(i.judgments).toHaveLength(1);
  });

  it('shows a run attached to from its record: its task, its status', () => {
    expect(inspectionReducers.attached(run('retrieve-4'))).toMatchObject({ runId: 'retrieve-4', repoId: 'repo-1', task: 'Fix it', status: 'running', taskId: null, judgments: [] });
  });

  it('caps the live list, dropping the oldest', () => {
    let i = inspectionReducers.started(inspectionReducers.start('repo-1', 'Fix it'), run('retrieve-1'), 't-1');
    for (let n = 1; n <= MAX_LIVE_JUDGMENTS + 2; n++) i = inspectionReducers.judgment(i, judgment({ done: n }));
    expect(i.judgments).toHaveLength(MAX_LIVE_JUDGMENTS);
    expect(i.judgments[0]?.done).toBe(3);
  });

  it('takes the end of its run with the run\'s result: done with the package, failed with the message, or cancelled', () => {
    const i = inspectionReducers.started(inspectionReducers.start('repo-1', 'Fix it'), run('retrieve-1'), 't-1');
    expect(inspectionReducers.finished(i, { runId: 'retrieve-9', kind: 'retrieve', status: 'done', result: result('t-9', '# other') })).toBe(i);
    expect(inspectionReducers.finished(i, { runId: 'retrieve-1', kind: 'retrieve', status: 'done', result: result('t-1', '# ctx') })).toMatchObject({ status: 'done', result: { markdown: '# ctx', stages: ['scope'] } });
    expect(inspectionReducers.finished(i, { runId: 'retrieve-1', kind: 'retrieve', status: 'failed', error: { code: 'INTERNAL', message: 'boom' } })).toMatchObject({ status: 'failed', error: 'boom', result: null });
    expect(inspectionReducers.finished(i, { runId: 'retrieve-1', kind: 'retrieve', status: 'cancelled' })).toMatchObject({ status: 'cancelled', error: null });
    expect(inspectionReducers.refused(inspectionReducers.start('r', 'x'), 'no index')).toMatchObject({ status: 'failed', error: 'no index' });
  });
});

describe('package helpers', () => {
  it('groups files by tier in tier order, files in package order', () => {
    expect(filesByTier(pkg).map((t) => [t.tier, t.files.map((f) => f.path)])).toEqual([
      [1, ['a.py']],
      [2, ['b.py', 'c.py']],
      [3, ['d.md']],
    ]);
  });

  it('finds the judged verdicts of a file or symbol in stage order, and labels passes', () => {
    const verdicts: RetrievalVerdict[] = [
      { stage: 'precision_pass2', subjectKind: 'symbol', subject: 'a.py:f', decision: 'primary', verdict: 'yes', callId: 3 },
      { stage: 'precision_pass1', subjectKind: 'symbol', subject: 'a.py:f', decision: 'relevant', verdict: 'yes', callId: 2 },
      { stage: 'scope', subjectKind: 'file', subject: 'a.py', decision: 'included' },
      { stage: 'scope', subjectKind: 'file', subject: 'b.py', decision: 'included', verdict: 'yes', callId: 1 },
    ];
    expect(verdictsFor(verdicts, 'a.py:f').map((v) => v.callId)).toEqual([2, 3]);
    expect(verdictsFor(verdicts, 'a.py')).toEqual([]);
    expect(stageLabel('precision_pass3')).toBe('pass 3');
    expect(stageLabel('scope')).toBe('scope');
  });

  it('counts judgments per stage and the used share of the budget', () => {
    expect(judgmentCounts([judgment(), judgment({ done: 2, verdict: 'no' }), judgment({ stage: 'precision_pass1', done: 1 })])).toEqual([
      { stage: 'scope', done: 2, yes: 1 },
      { stage: 'precision_pass1', done: 1, yes: 1 },
    ]);
    expect(budgetPercent(pkg.budget)).toBe(25);
    expect(budgetPercent({ tokens: 0, used: 0, safetyMargin: 0 })).toBe(0);
  });

  it('counts symbols by detail level (whole files are not symbols)', () => {
    const item = (detail: 'full' | 'signature' | 'file') => ({ detail, startLine: 1, endLine: 2, text: '', tokens: 1, reasons: [], ...(detail === 'file' ? {} : { symbol: { qualifiedName: 'f', kind: 'function', role: 'primary' as const } }) });
    const withItems = { ...pkg, files: [{ ...file('a.py', 1), items: [item('full'), item('signature'), item('signature')] }, { ...file('b.md', 1), items: [item('file')] }] };
    expect(detailCounts(withItems)).toEqual({ full: 1, signature: 2 });
  });

  it('saves the summary, stages, package and verdicts as JSON', () => {
    const saved = JSON.parse(packageJson({ package: pkg, summary, markdown: '#', stages: ['scope'], verdicts: [] })) as Record<string, unknown>;
    expect(Object.keys(saved)).toEqual(['summary', 'stages', 'package', 'verdicts']);
    expect(saved.package).toEqual(pkg);
  });
});

describe('symbols no model judged', () => {
  const item = (reasons: PackageItem['reasons']): PackageItem => ({ symbol: { qualifiedName: 'os.path.basename, sys.exit', kind: 'library', role: 'type_context' }, detail: 'signature', startLine: 1, endLine: 1, text: 'import os, sys', tokens: 6, reasons });

  it('say the reason the engine gave, not "named in the task" for every one (a library import was labelled so)', () => {
    expect(unjudgedNote(item([{ kind: 'library', detail: { module: 'os' } }]))).toBe('library symbol from os (no judgment)');
    expect(unjudgedNote(item([{ kind: 'named-in-task', detail: { text: 'load_config' } }]))).toBe('named in the task (“load_config”)');
    expect(unjudgedNote(item([{ kind: 'demoted', detail: { fullTokens: 40 } }]))).toBe('not judged');
  });
});
