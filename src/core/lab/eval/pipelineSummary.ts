import type { EvalPipelineResult, EvalPipelineSummary, EvalTaskResult } from '../../../shared/contract/eval';
import { effectiveBudget } from '../../features/retrieval';
import type { PipelineEvalOptions } from './pipelineTask';

/** The median of a list (0 for none); the mean of the two middle values for an even count. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

const mean = (values: readonly number[]) => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length);
const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;

/** The pipeline's figures over the tasks that ran it: mean recalls, median judgments, and the search's recall@10 beside them. */
export function pipelineSummary(options: PipelineEvalOptions, tasks: readonly EvalTaskResult[]): EvalPipelineSummary {
  const ran = tasks.filter((t): t is EvalTaskResult & { pipeline: EvalPipelineResult } => t.pipeline !== undefined);
  const p = ran.map((t) => t.pipeline);
  const functions = p.map((x) => x.functionRecall).filter((r): r is number => r !== undefined);
  const search10 = ran.map((t) => t.results.search?.recallAt['10']).filter((r): r is number => r !== undefined);
  return {
    judge: options.judge,
    budget: effectiveBudget(options.budget),
    tasks: ran.length,
    candidateRecallMean: round(mean(p.map((x) => x.candidateRecall))),
    packageRecallMean: round(mean(p.map((x) => x.packageRecall))),
    ...(functions.length > 0 ? { functionRecallMean: round(mean(functions)) } : {}),
    judgmentsMedian: median(p.map((x) => x.judgments)),
    scopeJudgmentsMedian: median(p.map((x) => x.scopeJudgments)),
    candidatesMedian: median(p.map((x) => x.candidates)),
    packageTokensMean: Math.round(mean(p.map((x) => x.packageTokens))),
    msMean: Math.round(mean(p.map((x) => x.ms))),
    ...(search10.length === ran.length && ran.length > 0 ? { searchRecallAt10Mean: round(mean(search10)) } : {}),
  };
}
