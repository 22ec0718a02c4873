import { describe, expect, it } from 'vitest';
import type { Plan } from '../../../shared/contract/plans';
import { extractJsonObject } from '../../platform/llm/replyJson';
import { checkPlan, findCycle, readPlanReply } from './planValidate';
import { GOOD_PLAN } from '../../testing/plans';

const INDEXED = new Set(['calc/tokenizer.py', 'calc/parser.py', 'calc/evaluator.py']);
const repo = { hasFile: (p: string) => INDEXED.has(p) };

describe('checkPlan', () => {
  it('accepts the good plan', () => {
    expect(checkPlan(GOOD_PLAN, repo)).toEqual([]);
  });

  it('refuses an execution order that puts a file before one it depends on, misses a file or names a stranger', () => {
    const plan: Plan = { ...GOOD_PLAN, execution_order: ['calc/tokenizer.py', 'calc/lexer.py', 'calc/evaluator.py'] };
    expect(checkPlan(plan, repo)).toEqual([
      'execution_order names calc/evaluator.py, which is not in affected_files',
      'execution_order misses calc/parser.py; list every affected file once',
      'execution_order puts calc/tokenizer.py before calc/lexer.py, but calc/tokenizer.py depends on calc/lexer.py',
    ]);
  });

  it('refuses a cycle made through depended_by as well as depends_on, and names it', () => {
    const plan: Plan = {
      ...GOOD_PLAN,
      affected_files: [
        { path: 'calc/tokenizer.py', role: 'modify', changes: [{ symbol: 'tokenize', action: 'modify', description: 'a', depends_on: [], depended_by: ['calc/parser.py'] }] },
        { path: 'calc/parser.py', role: 'modify', changes: [{ symbol: 'Parser', action: 'modify', description: 'b', depends_on: [], depended_by: ['calc/evaluator.py:evaluate'] }] },
        { path: 'calc/evaluator.py', role: 'modify', changes: [{ symbol: 'evaluate', action: 'modify', description: 'c', depends_on: [], depended_by: ['calc/tokenizer.py:tokenize'] }] },
      ],
      execution_order: ['calc/tokenizer.py', 'calc/parser.py', 'calc/evaluator.py'],
    };
    expect(findCycle(plan)).toEqual(['calc/tokenizer.py', 'calc/parser.py', 'calc/evaluator.py', 'calc/tokenizer.py']);
    expect(checkPlan(plan, repo)).toEqual(['dependency cycle: calc/tokenizer.py → calc/parser.py → calc/evaluator.py → calc/tokenizer.py; a file cannot depend on a file that depends on it']);
  });

  it('refuses a file listed twice, create of an existing file, code in the rationale and a dependency on an unknown file', () => {
    const plan: Plan = {
      task_summary: 't',
      affected_files: [
        { path: 'calc/parser.py', role: 'create', changes: [{ symbol: 'P', action: 'add', description: 'd', depends_on: ['nowhere.py:x'], depended_by: [] }] },
        { path: 'calc/parser.py', role: 'modify', changes: [{ symbol: 'P', action: 'modify', description: 'd', depends_on: [], depended_by: [] }] },
      ],
      execution_order: ['calc/parser.py'],
      rationale: 'Like this: ~~~\nx = 1\n~~~',
    };
    expect(checkPlan(plan, repo)).toEqual([
      'affected_files[0] (calc/parser.py): role is create but the file exists; use role modify',
      'affected_files[0] (calc/parser.py).changes[0]: the dependency "nowhere.py:x" names a file that is neither in the repository nor in the plan',
      'affected_files[1] (calc/parser.py): the file is listed twice; list each file once with all its changes',
      'rationale contains a code block; plans say what changes and why, never the code',
    ]);
  });
});

describe('readPlanReply', () => {
  it('finds the first balanced object after a thinking block, ignoring braces in strings and prose after it', () => {
    expect(extractJsonObject('<think>{no}</think> ok {"a": "}{", "b": {"c": 1}} then {x}')).toBe('{"a": "}{", "b": {"c": 1}}');
    expect(extractJsonObject('{"cut": ')).toBeNull();
  });

  it('normalises ./ paths and reports shape errors with their place', () => {
    const reply = JSON.stringify({ ...GOOD_PLAN, execution_order: GOOD_PLAN.execution_order.map((p) => `./${p}`) });
    expect(readPlanReply(reply, repo)).toEqual({ ok: true, plan: GOOD_PLAN });
    const bad = JSON.stringify({ ...GOOD_PLAN, affected_files: [{ path: 'calc/parser.py', role: 'edit', changes: [] }] });
    expect(readPlanReply(bad, repo)).toEqual({ ok: false, errors: [expect.stringMatching(/^affected_files\.0\.role: /)] });
  });
});
