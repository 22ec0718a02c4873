import type { ProgressNode } from '../../shared/contract';
import type { JudgmentReading, RetrievalJudgment, RetrievalVerdict } from '../../shared/contract/retrieval';
import type { CallLogger, ModelCallRecord, TokenLogprob } from '../llm/types';
import { pYesFrom } from '../llm/pYes';
import { readAnswer } from '../retrieval/judge';
import type { StageContext } from '../retrieval/stage';
import type { RunProgressUpdate } from '../runtime/runs';

/** Call stages that are binary judgments (task analysis is not one). */
const JUDGED = /^(scope|precision_pass[1-3]|precision_group|precision_file|similarity)$/;

/** The pipeline stage a call stage belongs to (precision_pass2 → precision). */
function pipelineStageOf(callStage: string): string {
  return callStage.startsWith('precision') ? 'precision' : callStage;
}

/**
 * What was judged, as the judge prompt names it (the item comes last in every judge prompt): a
 * path (`path: …`), a symbol as `path:qualified.name` (`symbol: …` then `file: path:lines`), else
 * the item's first line. For the live list only; the run's decisions are the record.
 */
export function judgedItem(prompt: string): string {
  // Whichever marker comes last starts the item (the task before it may contain either).
  const starts = ['\nItem:\n', '<Document>: '].map((m) => (prompt.lastIndexOf(m) >= 0 ? prompt.lastIndexOf(m) + m.length : -1));
  const start = Math.max(...starts);
  const doc = start >= 0 ? prompt.slice(start) : prompt;
  const [first = '', second = ''] = doc.split('\n');
  const path = /^path: (.+)$/.exec(first);
  if (path?.[1]) return path[1].trim();
  const symbol = /^symbol: (\S+)/.exec(first);
  const file = /^file: (.+):\d+-\d+$/.exec(second);
  if (symbol?.[1] && file?.[1]) return `${file[1]}:${symbol[1]}`;
  // A group of symbols past precision's caps: `file: path` then `symbols (n):`.
  const group = /^symbols \((\d+)\):$/.exec(second);
  const groupFile = /^file: (.+)$/.exec(first);
  if (group && groupFile?.[1]) return `${groupFile[1]} (${group[1]} symbols)`;
  return first.trim().slice(0, 160);
}

function logprobsOf(params: Record<string, unknown>): TokenLogprob[] | undefined {
  const value = params.logprobs;
  if (!Array.isArray(value)) return undefined;
  const ok = value.every((t) => typeof t === 'object' && t !== null && typeof (t as TokenLogprob).token === 'string' && typeof (t as TokenLogprob).logprob === 'number' && Array.isArray((t as TokenLogprob).top));
  return ok ? (value as TokenLogprob[]) : undefined;
}

/** What a retrieve run's progress reporter and event emitter need. */
export interface RetrieveWatchOptions {
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
 * Watches a retrieve run from the outside of the pipeline: every judgment call, once logged, is
 * pushed as retrieve/judgment and counted per stage (run/progress carries one node per stage with
 * done / total, precision with a child per pass); when a stage ends its decisions become the run's
 * verdicts, each with its model call. A stage's total is known when it ends (the pipeline does not
 * announce its candidates), so a running stage reports its judgments so far.
 */
export class RetrieveWatch {
  /** The run's decisions so far, in the order the stages made them. */
  readonly verdicts: RetrievalVerdict[] = [];
  private readonly counts = new Map<string, Count>();
  private readonly status = new Map<string, ProgressNode['status']>();

  constructor(private readonly options: RetrieveWatchOptions) {
    this.status.set('analysis', 'running');
    for (const s of options.stages) this.status.set(s, 'pending');
  }

  /** The run's call log with each judgment observed after it is written. */
  wrap(log: CallLogger): CallLogger {
    return {
      append: (record) => {
        const id = log.append(record);
        this.observe(record, id);
        return id;
      },
    };
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

  /** A judgment of a pass ended (the pipeline's onJudged): the pass's total is known while it runs. */
  judged(callStage: string, done: number, total: number): void {
    const count = this.counts.get(callStage) ?? { done: 0, yes: 0 };
    count.total = total;
    this.counts.set(callStage, count);
    this.report(callStage, { done, total, message: `${callStage}: ${done} of ${total} judgments` });
  }

  private observe(record: ModelCallRecord, callId: number): void {
    const stage = record.stage;
    if (!stage || !JUDGED.test(stage) || record.errorCode || record.runId !== this.options.runId) return;
    const reading = readAnswer(record.response ?? '', typeof record.params.done_reason === 'string' ? record.params.done_reason : undefined);
    const verdict = reading.verdict ?? 'no';
    const logprobs = logprobsOf(record.params);
    const pYes = logprobs ? pYesFrom(logprobs) : undefined;
    const count = this.counts.get(stage) ?? { done: 0, yes: 0 };
    count.done++;
    if (verdict === 'yes') count.yes++;
    this.counts.set(stage, count);
    this.options.emit({
      runId: this.options.runId,
      taskId: this.options.taskId,
      stage,
      item: judgedItem(record.prompt),
      verdict,
      read: reading.verdict ? reading.read : 'default-deny',
      ...(pYes !== undefined ? { pYes } : {}),
      ...(callId !== undefined ? { callId } : {}),
      done: count.done,
    });
    this.report(pipelineStageOf(stage));
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
