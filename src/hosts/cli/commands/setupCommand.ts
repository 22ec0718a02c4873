import type * as Readline from 'node:readline/promises';
import type { EngineClient } from '../../../core/app/contract/client';
import type { ModelCheckResult, ModelSetupPlan } from '../../../shared/contract';
import { formatBytes } from '../../../shared/format';
import { printable } from '../../../shared/printable';
import type { CliContext, CommandModule } from '../context';

const FIT = { fits: 'fits', tight: 'tight', too_large: 'too large' } as const;

/** The proposal as a person reads it: what is here, one line per model, the totals and the notes. */
export function formatPlan(plan: ModelSetupPlan): string {
  const lines = [
    `Ollama: ${plan.ollama.state.replace('_', ' ')} (${plan.ollama.address})`,
    `Built-in runtime: ${plan.builtin.available ? `available, ${plan.builtin.installed.length} model(s)` : `not available — ${plan.builtin.reason ?? ''}`}`,
    `Memory: ${formatBytes(plan.memory.totalBytes)}, ${formatBytes(plan.memory.freeBytes)} free`,
    plan.missingStages.length ? `Stages without a working model: ${plan.missingStages.join(', ')}` : 'Every stage has a working model.',
    '',
  ];
  if (plan.provider) {
    lines.push(`Proposed (${plan.provider === 'builtin' ? 'built-in runtime' : 'Ollama'}):`);
    for (const m of plan.models) lines.push(`  ${m.name.padEnd(30)} ${(m.installed ? 'on disk' : m.sizeBytes ? formatBytes(m.sizeBytes) : 'size unknown').padEnd(10)} ${m.stages.join(', ')}`);
    lines.push(`Download ${formatBytes(plan.downloadBytes)}; all loaded together ${formatBytes(plan.memoryBytes)} (${FIT[plan.fit]} in this machine's memory).`);
  }
  for (const note of plan.notes) lines.push(note);
  return `${lines.map((l) => printable(l)).join('\n')}\n`;
}

async function confirm(question: string): Promise<boolean> {
  // Loaded here: every other command (and `cra --version`) would load it at start for nothing.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { createInterface } = require('node:readline/promises') as typeof Readline;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

/** Follow a run's progress on stderr (one redrawn line on a terminal, else a line per message), then wait for it. */
async function follow<T>(engine: EngineClient, ctx: CliContext, runId: string): Promise<T> {
  let last = '';
  const off = engine.on('run/progress', (p) => {
    if (p.runId !== runId) return;
    const line = printable(`${p.message ?? ''} ${p.phase} ${p.total ? `${Math.floor((p.done / p.total) * 100)}%` : ''}`.trim());
    if (ctx.isTty) process.stderr.write(`\r\x1b[K${line.slice(0, (process.stderr.columns || 100) - 1)}`);
    else if (`${p.message}${p.phase}` !== last) process.stderr.write(`${line}\n`);
    last = `${p.message}${p.phase}`;
  });
  const stop = () => engine.cancel(runId);
  process.once('SIGINT', stop);
  try {
    return (await engine.wait(runId)) as T;
  } finally {
    if (ctx.isTty) process.stderr.write('\r\x1b[K');
    off();
    process.off('SIGINT', stop);
  }
}

/** `cra setup`: see what is here, propose one model per stage, and (after a yes, or with --yes) download and assign them. */
export const registerSetup: CommandModule = (program, ctx) => {
  program
    .command('setup')
    .description('one step to working models: detect Ollama, the built-in runtime and memory, propose a model per stage, download and assign them')
    .option('--yes', 'download and assign without asking')
    .option('--json', 'print the proposal (and with --yes the result) as JSON')
    .action(async (opts: { yes?: boolean; json?: boolean }) => {
      const engine = ctx.client();
      try {
        const plan = await engine.request('models/setupPlan', {});
        if (!opts.json) process.stdout.write(formatPlan(plan));
        if (!plan.provider) {
          process.exitCode = 1;
          return;
        }
        const go = opts.yes ?? (process.stdin.isTTY && !opts.json ? await confirm('Download and assign these models? [y/N] ') : false);
        if (!go) {
          if (opts.json) process.stdout.write(`${JSON.stringify({ plan }, null, 2)}\n`);
          else process.stdout.write('Nothing was changed. Run `cra setup --yes` to download and assign them.\n');
          return;
        }
        const { runId } = await engine.request('models/setup', {});
        const result = await follow<{ downloaded: string[]; assigned: unknown[] }>(engine, ctx, runId);
        if (opts.json) process.stdout.write(`${JSON.stringify({ plan, result }, null, 2)}\n`);
        else process.stdout.write(`Downloaded ${result.downloaded.length} model(s); assigned ${result.assigned.length} stages. Try \`cra chat\`, or check them with \`cra models check\`.\n`);
      } finally {
        await engine.dispose();
      }
    });
};

const pct = (x: number | null) => (x === null ? '—' : `${Math.round(x * 1000) / 10}%`);

/** The figures of a check, one row per stage. */
export function formatChecks(results: readonly ModelCheckResult[]): string {
  const rows = [['STAGE', 'MODEL', 'N', 'ACCURACY', 'BALANCED', 'AUC', 'VALID PLANS', 'UNUSABLE', 'P50', 'TOKENS/S']];
  for (const r of results) rows.push([r.stage, r.model, String(r.n), pct(r.accuracy), pct(r.balancedAccuracy), r.auc === null ? '—' : r.auc.toFixed(3), pct(r.validPlanRate ?? null), pct(r.unusableRate), `${r.p50LatencyMs} ms`, String(r.tokensPerSecond)]);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const table = rows.map((r) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd()).join('\n');
  const notes = results.filter((r) => r.note).map((r) => `${r.stage}: ${r.note}`);
  return `${printable(table, { multiline: true })}\n${notes.map((n) => `${printable(n)}\n`).join('')}`;
}

/** `cra models check`: the assigned models on the repository's own history. */
export async function modelsCheck(ctx: CliContext, opts: { repo: string; stage?: 'scope' | 'precision' | 'plan'; model?: string; n: number; json?: boolean }): Promise<void> {
  const engine = ctx.client();
  try {
    const { runId } = await engine.request('models/check', { repoPath: opts.repo, n: opts.n, ...(opts.stage ? { stage: opts.stage } : {}), ...(opts.model ? { model: opts.model } : {}) });
    const { results } = await follow<{ results: ModelCheckResult[] }>(engine, ctx, runId);
    process.stdout.write(opts.json ? `${JSON.stringify(results, null, 2)}\n` : formatChecks(results));
  } finally {
    await engine.dispose();
  }
}
