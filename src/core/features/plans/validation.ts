/**
 * Validation of a solve step in the run's worktree: the repository's test and lint commands as the
 * user configured them ([validation.<repoId>] of the user-level config; never a command a model
 * wrote), or, with none configured, a syntax check of the changed files parsed with tree-sitter.
 * A failure's output is mined for concrete evidence (missing files, symbols, failing tests, error
 * signatures): with some, it becomes a RefinementRequest (docs/design.md, Refinement requests).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '../../../shared/contract';
import type { RefinementRequest, ValidationReport } from '../../../shared/contract/plansRuns';
import { confinePath } from '../../platform/fs/confine';
import { createExtractor, type Extractor } from '../../knowledge/indexer/extract/extractor';
import { detectLanguage } from '../../knowledge/indexer/extract/languages';
import { requireSandbox, sandboxed, type SandboxKind } from './sandbox';

/** A repository's configured validation commands. */
export interface ValidationCommands {
  test?: string;
  lint?: string;
  timeout_s: number;
  /** Run them without an OS sandbox where the machine has none (the user agreed; see sandbox.ts). */
  allowUnsandboxed?: boolean;
}

/** Most output kept per check (its end: where test runners print the summary). */
const MAX_OUTPUT = 64 * 1024;

/**
 * Run one configured command line in `cwd` through the shell — inside `sandbox`, or (null: the user
 * agreed) without one —, with a minimal environment, a time limit and its output kept (its tail).
 */
export async function runCommand(
  command: string,
  cwd: string,
  timeoutMs: number,
  sandbox: { kind: SandboxKind; program: string } | null,
  signal?: AbortSignal,
): Promise<{ exitCode: number | null; output: string; ms: number; timedOut: boolean }> {
  const scratch = mkdtempSync(join(tmpdir(), 'cra-validate-'));
  mkdirSync(join(scratch, 'home'));
  try {
    return await runSpawned(sandboxed(sandbox, command, cwd, scratch), cwd, timeoutMs, signal);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function runSpawned(run: ReturnType<typeof sandboxed>, cwd: string, timeoutMs: number, signal?: AbortSignal): Promise<{ exitCode: number | null; output: string; ms: number; timedOut: boolean }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AppError('CANCELLED', 'Cancelled.'));
    // detached: the command and whatever it starts form one process group, stopped together
    // (bwrap's --die-with-parent and pid namespace take down what it started in its own session).
    const child = spawn(run.file, run.args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: run.env });
    let output = '';
    let timedOut = false;
    const take = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.length > 2 * MAX_OUTPUT) output = output.slice(-MAX_OUTPUT);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    const stop = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, timeoutMs);
    const onAbort = () => stop();
    signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (error) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (signal?.aborted) return reject(new AppError('CANCELLED', 'Cancelled.'));
      resolve({ exitCode: code, output: output.length > MAX_OUTPUT ? output.slice(-MAX_OUTPUT) : output, ms: Math.round(performance.now() - started), timedOut });
    });
  });
}

/** Parse the changed files (deleted ones skipped) with tree-sitter; a file in a language without a grammar is not checked. */
export async function syntaxCheck(checkout: string, files: readonly string[], extractor?: Extractor): Promise<ValidationReport> {
  const own = extractor ? undefined : await createExtractor();
  const parser = extractor ?? own!;
  const checks: ValidationReport['checks'] = [];
  try {
    for (const file of files) {
      const language = detectLanguage(file);
      if (!language) continue;
      let source: string;
      try {
        source = readFileSync(confinePath(checkout, file).absolute, 'utf8');
      } catch {
        continue; // deleted by the step
      }
      const started = performance.now();
      const parsed = await parser.extractAsync(language, source);
      checks.push({ name: `syntax ${file}`, ok: !parsed.hasSyntaxErrors, exitCode: null, output: parsed.hasSyntaxErrors ? `SyntaxError: ${file} does not parse as ${language} (tree-sitter found ERROR or MISSING nodes)` : '', ms: Math.round(performance.now() - started) });
    }
  } finally {
    own?.dispose();
  }
  return { ok: checks.every((c) => c.ok), kind: checks.length ? 'syntax' : 'none', checks };
}

/**
 * Run the configured commands (test, then lint) in the checkout, in the OS sandbox (refused without
 * one unless the user agreed), or the syntax check when none is configured.
 */
export async function validateStep(checkout: string, changed: readonly string[], commands: ValidationCommands | undefined, signal?: AbortSignal): Promise<ValidationReport> {
  const configured = (['test', 'lint'] as const).filter((name) => commands?.[name]);
  if (!commands || configured.length === 0) return syntaxCheck(checkout, changed);
  const sandbox = await requireSandbox(commands.allowUnsandboxed ?? false);
  const checks: ValidationReport['checks'] = [];
  for (const name of configured) {
    const command = commands[name]!;
    const run = await runCommand(command, checkout, commands.timeout_s * 1000, sandbox, signal);
    const output = run.timedOut ? `${run.output}\n(stopped after ${commands.timeout_s} s: [validation].timeout_s)` : run.output;
    checks.push({ name, command, ok: run.exitCode === 0 && !run.timedOut, exitCode: run.exitCode, output, ms: run.ms, ...(run.timedOut ? { timedOut: true } : {}) });
  }
  return { ok: checks.every((c) => c.ok), kind: 'commands', checks };
}

const uniq = (items: string[]) => [...new Set(items.map((s) => s.trim()).filter(Boolean))].slice(0, 20);

/**
 * Concrete evidence in a failed validation's output, as a RefinementRequest; null when there is
 * none (a bare non-zero exit, a time-out): then the failure is retried, not refined.
 */
export function refinementFromValidation(report: ValidationReport): RefinementRequest | null {
  if (report.ok) return null;
  const text = report.checks
    .filter((c) => !c.ok && !c.timedOut)
    .map((c) => c.output)
    .join('\n');
  const files: string[] = [];
  const symbols: string[] = [];
  const tests: string[] = [];
  const signatures: string[] = [];
  for (const m of text.matchAll(/Cannot find module '([^']+)'/g)) files.push(m[1]!);
  for (const m of text.matchAll(/ENOENT: no such file or directory, \w+ '([^']+)'/g)) files.push(m[1]!);
  for (const m of text.matchAll(/No module named '([^']+)'/g)) files.push(m[1]!);
  for (const m of text.matchAll(/(?:ReferenceError|NameError): (?:name )?'?([A-Za-z_$][\w$]*)'? is not defined/g)) symbols.push(m[1]!);
  for (const m of text.matchAll(/(?:[\w$]+\.)*([A-Za-z_$][\w$]*) is not a function/g)) symbols.push(m[1]!);
  for (const m of text.matchAll(/has no (?:attribute|exported member) '([^']+)'/g)) symbols.push(m[1]!);
  for (const m of text.matchAll(/Cannot find name '([^']+)'/g)) symbols.push(m[1]!);
  for (const m of text.matchAll(/^\s*not ok \d+ - (.+)$/gm)) tests.push(m[1]!);
  for (const m of text.matchAll(/^FAILED (\S+)/gm)) tests.push(m[1]!);
  for (const m of text.matchAll(/^\s*((?:[A-Z][A-Za-z]*)?(?:Error|Exception)(?: \[[A-Z_]+\])?: .{1,200})$/gm)) signatures.push(m[1]!);
  // node --test (TAP) puts the message in a YAML block: `error: 'm.mul is not a function'`.
  for (const m of text.matchAll(/^\s*error: '(.{1,200})'$/gm)) signatures.push(m[1]!);
  const request: RefinementRequest = { reason: '', missing_files: uniq(files), missing_symbols: uniq(symbols), missing_tests: uniq(tests), error_signatures: uniq(signatures) };
  const facts = request.missing_files.length + request.missing_symbols.length + request.missing_tests.length + request.error_signatures.length;
  if (facts === 0) return null;
  const failed = report.checks.filter((c) => !c.ok).map((c) => c.name);
  request.reason = `validation failed (${failed.join(', ')}) with ${facts} concrete item${facts === 1 ? '' : 's'} of evidence`;
  return request;
}

/** The failed checks' output as a retry prompt shows it. */
export function validationSummary(report: ValidationReport, max = 4000): string {
  const failed = report.checks.filter((c) => !c.ok);
  const text = failed.map((c) => `### ${c.name}${c.command ? ` (\`${c.command}\`)` : ''}: exit ${c.exitCode ?? '—'}${c.timedOut ? ', timed out' : ''}\n${c.output.trim()}`).join('\n\n');
  return text.length > max ? `…${text.slice(-max)}` : text;
}
