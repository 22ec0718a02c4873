/**
 * Binary judgments in the built-in runtime (issue #24, item 2): tokens evaluated and ms per
 * judgment with the shared prompt prefix (system + task) reused through the KV cache, and without
 * (every prompt evaluated whole), on the real GGUF (../shared/models/stories260K.gguf or
 * $CRA_TEST_GGUF: a tiny base model, so the figures measure the mechanics, not answer quality).
 * One CPU thread. `run()` is what `bin/bench.js` calls; `npx tsx bench/judge.bench.ts` prints the
 * figures as JSON.
 *
 * It measures the runtime's next-token judging alone, on purpose: KV-cache prefix reuse on and off
 * per judgment, which no request selects, with the test GGUF runtime as the `builtin` provider. It
 * builds an `LlmClient` as the engine's model services do (platform/llm/services.ts); a `Core` does
 * not hand its client out, and a whole retrieval run (what a request measures) would hide the
 * per-judgment cost.
 *
 * Env: CRA_BENCH_JUDGMENTS (items per mode, default 40).
 */
import { parseToml, validateConfig } from '../src/core/platform/config/load';
import { openRawDatabase } from '../src/core/platform/db/raw';
import { LlmClient } from '../src/core/platform/llm/client';
import { ModelRouter } from '../src/core/platform/llm/router';
import { RawCallLog } from '../src/core/platform/logs/callLog';
import { judgePrompt } from '../src/core/features/retrieval/judgePrompts';
import { REAL_GGUF_NAME, realGgufRuntime } from '../src/core/testing/realGguf';
import { runIfMain } from './standalone';
import type { BenchContext, BenchFigure } from './types';

const TASK = 'When a repository is indexed twice in a row, the second pass re-reads every file although nothing changed. Make the incremental pass skip files whose size and modification time are unchanged, and add a test.';

/** Item texts of realistic length: a path and a few lines of code each. */
function items(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `src/module${i}/file${i}.ts\nexport function step${i}(input: number): number {\n  return input * ${i} + ${i % 7};\n}`);
}

export async function run(ctx: BenchContext): Promise<BenchFigure[]> {
  const n = Number(process.env.CRA_BENCH_JUDGMENTS ?? 40);
  const env = await realGgufRuntime();
  try {
    const toml = `[models]\nprovider = "builtin"\nreasoning = "${REAL_GGUF_NAME}"\ncontext_window = 2048\n`;
    const router = new ModelRouter({ values: validateConfig(parseToml(toml, 'bench'), 'bench'), files: [], primaryFile: 'bench' });
    const llm = new LlmClient({ router: () => router, log: new RawCallLog(openRawDatabase(':memory:')), retry: { attempts: 1 }, providers: { builtin: env.provider } });
    const judge = (document: string, reuse: boolean) => {
      const { system, prompt } = judgePrompt('chat', { instruct: 'Is this file needed to carry out the task?', query: TASK, document });
      return llm.judgeNextToken(prompt, { stage: 'scope', system, reuse });
    };
    await judge('warm-up', true); // load the model: not part of either figure
    const figures: BenchFigure[] = [];
    for (const reuse of [false, true]) {
      let evaluated = 0;
      let promptTokens = 0;
      const started = performance.now();
      for (const doc of items(n)) {
        const r = await judge(doc, reuse);
        evaluated += r.evaluatedTokens;
        promptTokens += r.promptTokens;
      }
      const ms = (performance.now() - started) / n;
      const mode = reuse ? 'prefixReuse' : 'noReuse';
      ctx.log(`${mode}: ${(evaluated / n).toFixed(1)} of ${(promptTokens / n).toFixed(1)} prompt tokens evaluated, ${ms.toFixed(2)} ms per judgment`);
      figures.push(
        { name: `judge.${mode}.tokensEvaluatedPerJudgment`, value: evaluated / n, unit: 'tokens', better: 'lower', note: `of ${(promptTokens / n).toFixed(1)} prompt tokens; ${n} judgments` },
        { name: `judge.${mode}.msPerJudgment`, value: ms, unit: 'ms', better: 'lower', note: `real GGUF ${REAL_GGUF_NAME}, 1 CPU thread` },
      );
    }
    return figures;
  } finally {
    await env.dispose();
  }
}

runIfMain(__filename, 'judge', run);
