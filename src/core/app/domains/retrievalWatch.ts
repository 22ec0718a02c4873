import type { ProgressNode } from '../../../shared/contract';
import type { JudgmentReading, RetrievalJudgment, RetrievalVerdict } from '../../../shared/contract/retrieval';
import type { Judged, StageContext } from '../../features/retrieval';
import type { RunProgressUpdate } from '../../platform/runtime/runs';

/** The pipeline stage a call stage belongs to (precision_pass2 → precision). */
function pipelineStageOf(callStage: string): string {
  return callStage.startsWith('precision') ? 'precision' : callStage;
}

/** What a retrieve run's progress reporter and event emitter need. */
export interface RetrievalWatchOptions {
  runId: string;
  taskId: string;
  /** The pipeline stages of the run, in order. */
  stages: readonly string[];
  emit(judgment: RetrievalJudgment): void;
  progress(update: RunProgressUpdate): void;
}

interface Count {
  done: number;
  yes: number;
  total?: number;
}

/**
 * Follows a retrieve run through the pipeline's callbacks: every judgment the judge reports (with
 * the item it was about) is pushed as retrieval/judgment and counted per stage (run/progress carries
 * one node per stage with done / total, precision with a child per pass); when a stage ends its
 * decisions become the run's verdicts, each with its model call. A stage's total is known when it
 * ends (the pipeline does not announce its candidates), so a running stage reports its judgments so far.
 */
export class RetrievalWatch {
  /** The run's decisions so far, in the order the stages made them. */
  readonly verdicts: RetrievalVerdict[] = [];
  /** Judgments made (one model call each, failed calls included). */
  judgments = 0;
  private readonly counts = new Map<string, Count>();
  private readonly status = new Map<string, ProgressNode['status']>();

  constructor(private readonly options: RetrievalWatchOptions) {
    this.status.set('analysis', 'running');
    for (const s of options.stages) this.status.set(s, 'pending');
  }

  /** Task analysis ended: the first stage runs. */
  analysisDone(): void {
    this.status.set('analysis', 'done');
    const first = this.options.stages[0];
    if (first) this.status.set(first, 'running');
    this.report(first ?? 'analysis');
  }

  /** A pipeline stage ended (runPipeline's onStage): its decisions are kept and its totals known; the next stage runs. */
  stageEnded(name: string, context: StageContext): void {
    const seen = new Set<string>();
    for (const d of context.decisions) {
      const stage = d.stage ?? name;
      const j = d.judgment ?? {};
      const verdict = j.verdict === 'yes' || j.verdict === 'no' ? j.verdict : undefined;
      this.verdicts.push({
        stage,
        subjectKind: d.subjectKind,
        subject: d.subject,
        decision: d.decision,
        ...(verdict ? { verdict } : {}),
        ...(typeof j.read === 'string' ? { read: j.read as JudgmentReading } : {}),
        ...(typeof j.pYes === 'number' ? { pYes: j.pYes } : {}),
        ...(d.modelCallId !== undefined ? { callId: d.modelCallId } : {}),
      });
      if (verdict) seen.add(stage);
    }
    for (const [stage, count] of this.counts) if (pipelineStageOf(stage) === name) count.total = count.done;
    for (const stage of seen) if (!this.counts.has(stage)) this.counts.set(stage, { done: 0, yes: 0, total: 0 });
    this.status.set(name, 'done');
    const next = this.options.stages[this.options.stages.indexOf(name) + 1];
    if (next) this.status.set(next, 'running');
    this.report(next ?? name);
  }

  /**
   * A judgment of a pass ended (the pipeline's onJudged): the pass's total is known while it runs,
   * and the judgment, with its item, is pushed (a call that failed is counted, not listed).
   */
  judged(callStage: string, done: number, total: number, judged?: Judged): void {
    const count = this.counts.get(callStage) ?? { done: 0, yes: 0 };
    count.total = total;
    this.counts.set(callStage, count);
    if (judged) this.push(callStage, judged);
    this.report(callStage, { done, total, message: `${callStage}: ${done} of ${total} judgments` });
  }

  private push(stage: string, { judgment: j, item }: Judged): void {
    this.judgments++;
    if (j.errorCode) return;
    const count = this.counts.get(stage) ?? { done: 0, yes: 0 };
    count.done++;
    if (j.verdict === 'yes') count.yes++;
    this.counts.set(stage, count);
    this.options.emit({
      runId: this.options.runId,
      taskId: this.options.taskId,
      stage,
      subjectKind: item.subjectKind,
      path: item.path,
      ...(item.symbol !== undefined ? { symbol: item.symbol } : {}),
      item: item.subject,
      verdict: j.verdict,
      read: j.read,
      ...(j.pYes !== undefined ? { pYes: j.pYes } : {}),
      ...(j.callId !== undefined ? { callId: j.callId } : {}),
      done: count.done,
    });
  }

  private node(id: string, label: string, status: ProgressNode['status'], count?: Count): ProgressNode {
    return { id, label, status, ...(count ? { done: count.done, ...(count.total !== undefined ? { total: count.total } : {}) } : {}) };
  }

  private report(phase: string, pass?: { done: number; total: number; message: string }): void {
    const steps: ProgressNode[] = [this.node('analysis', 'task analysis', this.status.get('analysis') ?? 'pending')];
    for (const stage of this.options.stages) {
      const calls = [...this.counts.entries()].filter(([s]) => pipelineStageOf(s) === stage).sort(([a], [b]) => a.localeCompare(b));
      const sum: Count = { done: calls.reduce((n, [, c]) => n + c.done, 0), yes: 0 };
      const status = this.status.get(stage) ?? 'pending';
      if (status === 'done') sum.total = sum.done;
      const children = stage === 'precision' ? calls.map(([s, c]) => this.node(s, s.replace('precision_pass', 'pass ').replace('precision_group', 'groups').replace('precision_file', 'files'), c.total !== undefined ? 'done' : status, c)) : [];
      steps.push({ ...this.node(stage, stage, status, sum), ...(children.length ? { children } : {}) });
    }
    const done = [...this.counts.values()].reduce((n, c) => n + c.done, 0);
    // Once every stage ended the count is complete (which also sends this last report at once).
    const finished = this.options.stages.every((s) => this.status.get(s) === 'done');
    if (pass) return void this.options.progress({ phase, ...pass, steps });
    this.options.progress({ phase, done, ...(finished ? { total: done } : {}), message: `${done} judgments`, steps });
  }
}
