import { resolve } from 'node:path';
import { InvalidArgumentError } from 'commander';
import type { EngineClient } from '../../../core/app/contract/client';
import { formatBytes } from '../../../shared/format';
import type { ModelPullProgress } from '../../../shared/contract';
import type { CliContext, CommandModule } from '../context';
import { modelsCheck } from './setupCommand';

async function withEngine<T>(ctx: CliContext, fn: (engine: EngineClient) => Promise<T>): Promise<T> {
  const engine = ctx.client();
  try {
    return await fn(engine);
  } finally {
    await engine.dispose();
  }
}

function print(json: boolean | undefined, value: unknown, text: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : text());
}

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd()).join('\n') + '\n';
}

/** One progress line: "qwen3:4b  42%  1.1 GB / 2.5 GB  12 MB/s  ETA 2m 3s". */
export function progressLine(p: ModelPullProgress): string {
  const pct = p.percent === null ? '…' : `${Math.floor(p.percent)}%`;
  const bytes = p.totalBytes ? `${formatBytes(p.doneBytes)} / ${formatBytes(p.totalBytes)}` : p.phase;
  const speed = p.bytesPerSecond ? `${formatBytes(p.bytesPerSecond)}/s` : '';
  const eta = p.etaSeconds !== null ? `ETA ${Math.floor(p.etaSeconds / 60)}m ${p.etaSeconds % 60}s` : '';
  return [p.model, pct, bytes, speed, eta, p.retry ? `(reconnected ${p.retry}×)` : ''].filter(Boolean).join('  ');
}

/** `cra models list|pull|rm|ps|show`. */
export const registerModels: CommandModule = (program, ctx) => {
  const models = program.command('models').description('list, download, inspect and delete local models (Ollama)');
  models
    .command('list')
    .description('installed models: size, family, parameters, quantization, context length, loaded')
    .option('--json', 'print JSON')
    .action((opts: { json?: boolean }) =>
      withEngine(ctx, async (engine) => {
        const { models: list } = await engine.request('models/list', {});
        print(opts.json, list, () =>
          list.length === 0
            ? 'No models installed. Try `cra models pull qwen3:0.6b`.\n'
            : table([['NAME', 'SIZE', 'FAMILY', 'PARAMS', 'QUANT', 'CONTEXT', 'LOADED'], ...list.map((m) => [m.name, formatBytes(m.sizeBytes), m.family ?? '', m.parameters ?? '', m.quantization ?? '', m.contextLength ? String(m.contextLength) : '', m.loaded ? 'yes' : ''])]),
        );
      }),
    );
  models
    .command('pull')
    .description('download a model (interrupted downloads resume)')
    .argument('<name>', 'model tag, e.g. qwen3:4b')
    .action((name: string) => withEngine(ctx, (engine) => pull(engine, name, ctx.isTty)));
  models
    .command('rm')
    .description('delete an installed model')
    .argument('<name>', 'model tag')
    .action((name: string) =>
      withEngine(ctx, async (engine) => {
        await engine.request('models/delete', { name });
        process.stdout.write(`Deleted ${name}\n`);
      }),
    );
  models
    .command('check')
    .description('check the assigned models on a repository: labelled judgments from its own history (accuracy, balanced accuracy, AUC, unusable answers, latency) and the share of valid plans')
    .option('--repo <path>', 'the git repository', '.')
    .option('--stage <stage>', 'scope, precision or plan (default all three)', (v: string) => {
      if (v !== 'scope' && v !== 'precision' && v !== 'plan') throw new InvalidArgumentError(`"${v}" cannot be checked; use scope, precision or plan.`);
      return v;
    })
    .option('--model <name>', 'ask this model instead of the assigned one')
    .option('--n <count>', 'judgments per stage', (v: string) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 2 || n > 1000) throw new InvalidArgumentError(`"${v}" is not a count; use a whole number from 2 to 1000.`);
      return n;
    }, 40)
    .option('--json', 'print JSON')
    .action((opts: { repo: string; stage?: 'scope' | 'precision' | 'plan'; model?: string; n: number; json?: boolean }) => modelsCheck(ctx, { ...opts, repo: resolve(opts.repo) }));
  models
    .command('ps')
    .description('models loaded in memory')
    .option('--json', 'print JSON')
    .action((opts: { json?: boolean }) =>
      withEngine(ctx, async (engine) => {
        const { models: list } = await engine.request('models/ps', {});
        print(opts.json, list, () => (list.length === 0 ? 'No models loaded.\n' : table([['NAME', 'SIZE', 'VRAM', 'UNTIL'], ...list.map((m) => [m.name, formatBytes(m.sizeBytes), formatBytes(m.vramBytes), m.expiresAt ?? ''])])));
      }),
    );
  models
    .command('show')
    .description('details of an installed model')
    .argument('<name>', 'model tag')
    .option('--json', 'print JSON')
    .action((name: string, opts: { json?: boolean }) =>
      withEngine(ctx, async (engine) => {
        const d = await engine.request('models/show', { name });
        print(opts.json, d, () => table([['name', d.name], ['family', d.family ?? ''], ['parameters', d.parameters ?? ''], ['quantization', d.quantization ?? ''], ['context', d.contextLength ? String(d.contextLength) : ''], ['capabilities', d.capabilities.join(', ')]]));
      }),
    );
};

async function pull(engine: EngineClient, name: string, isTty: boolean): Promise<void> {
  const { runId } = await engine.request('models/pull', { name });
  let lastPlain = -1;
  const off = engine.on('models/pullProgress', (p) => {
    if (p.runId !== runId) return;
    if (isTty) process.stderr.write(`\r\x1b[2K${progressLine(p)}`);
    else if (p.percent !== null && Math.floor(p.percent / 10) > lastPlain) {
      lastPlain = Math.floor(p.percent / 10);
      process.stderr.write(`${progressLine(p)}\n`);
    }
  });
  const stop = () => engine.cancel(runId);
  process.once('SIGINT', stop);
  try {
    await engine.wait(runId);
    if (isTty) process.stderr.write('\n');
    process.stdout.write(`Pulled ${name}\n`);
  } catch (error) {
    if (isTty) process.stderr.write('\n');
    throw error;
  } finally {
    off();
    process.off('SIGINT', stop);
  }
}
