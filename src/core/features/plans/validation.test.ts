import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ValidationReport } from '../../../shared/contract/plansRuns';
import { detectSandbox } from './sandbox';
import { refinementFromValidation, runCommand, syntaxCheck, validateStep } from './validation';

const dir = mkdtempSync(join(tmpdir(), 'cra-validation-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const failed = (output: string, extra: Partial<ValidationReport['checks'][number]> = {}): ValidationReport => ({ ok: false, kind: 'commands', checks: [{ name: 'test', command: 'x', ok: false, exitCode: 1, output, ms: 1, ...extra }] });

describe('validation', () => {
  it('runs the configured commands in order in the checkout and keeps their output; a time-out stops the command and fails', async () => {
    const report = await validateStep(dir, [], { test: 'echo tested; pwd', lint: 'echo linted >&2; exit 3', timeout_s: 30 });
    expect(report).toMatchObject({ ok: false, kind: 'commands', checks: [{ name: 'test', ok: true, exitCode: 0 }, { name: 'lint', ok: false, exitCode: 3, output: 'linted\n' }] });
    expect(report.checks[0]!.output).toBe(`tested\n${dir}\n`);
    const slow = await runCommand('sleep 30', dir, 200, await detectSandbox());
    expect(slow).toMatchObject({ timedOut: true });
  });

  it('parses changed files with tree-sitter when no command is configured; unknown languages and deleted files are not checked', async () => {
    writeFileSync(join(dir, 'good.js'), 'function f() { return 1; }\n');
    writeFileSync(join(dir, 'bad.py'), 'def f(:\n    return 1\n');
    writeFileSync(join(dir, 'notes.xyz'), '{{{');
    const report = await syntaxCheck(dir, ['good.js', 'bad.py', 'notes.xyz', 'gone.ts']);
    expect(report.kind).toBe('syntax');
    expect(report.checks.map((c) => `${c.name}:${c.ok}`)).toEqual(['syntax good.js:true', 'syntax bad.py:false']);
    expect(report.checks[1]!.output).toBe('SyntaxError: bad.py does not parse as python (tree-sitter found ERROR or MISSING nodes)');
    expect((await validateStep(dir, ['good.js'], undefined)).kind).toBe('syntax');
  });

  it('turns concrete evidence into a RefinementRequest: missing modules, symbols, failing tests, error signatures', () => {
    const node = "not ok 2 - mul\n  error: 'math.mul is not a function'\nError: Cannot find module './lexer'\n";
    expect(refinementFromValidation(failed(node))).toEqual({
      reason: 'validation failed (test) with 5 concrete items of evidence',
      missing_files: ['./lexer'],
      missing_symbols: ['mul'],
      missing_tests: ['mul'],
      error_signatures: ["Error: Cannot find module './lexer'", 'math.mul is not a function'],
    });
    const py = "FAILED tests/test_calc.py::test_mul - NameError: name 'mul' is not defined\nModuleNotFoundError: No module named 'calc.lexer'\n";
    expect(refinementFromValidation(failed(py))).toMatchObject({ missing_files: ['calc.lexer'], missing_symbols: ['mul'], missing_tests: ['tests/test_calc.py::test_mul'] });
  });

  it('gives no RefinementRequest without evidence: a bare non-zero exit, a time-out, a passing run', () => {
    expect(refinementFromValidation(failed('3 problems\n'))).toBeNull();
    expect(refinementFromValidation(failed('Error: took too long', { timedOut: true }))).toBeNull();
    expect(refinementFromValidation({ ok: true, kind: 'none', checks: [] })).toBeNull();
  });
});
