import type { Reason } from '../../../shared/contract/reasons';
import type { Statement } from 'better-sqlite3';
import type { Db } from '../../platform/db/open';

/** One retrieval decision: what was decided about one file, symbol or pair, and why. */
export interface DecisionRecord {
  runId: string;
  /** scope, precision_pass1, similarity, … */
  stage: string;
  subjectKind: 'file' | 'symbol' | 'pair' | 'stage' | 'run';
  /** Path, qualified symbol, "a|b", a stage name (routing) or the run id (the run's budget config). */
  subject: string;
  /** seed, dependency, co_change, … (null where tiers do not apply). */
  tier?: string;
  /** included, excluded, primary, supporting, type_context, … */
  decision: string;
  /** Why, as data: the reasons that brought the item and the verdict's reason. */
  reasons: Reason[];
  /** Extra facts of a judgment (P(yes), how the answer was read). */
  judgment?: Record<string, unknown>;
  /** The model call behind the decision (model_calls.id), when one was made. */
  modelCallId?: number;
}

/** Where retrieval decisions go (the raw DB's `retrieval_decisions`; a list in tests of pure logic). */
export interface DecisionSink {
  record(decision: DecisionRecord): void;
  /** Several at once (one transaction where the sink is a database); default: one `record` each. */
  recordAll?(decisions: readonly DecisionRecord[]): void;
}

/**
 * Appends decisions to a raw database's `retrieval_decisions` table, one insert each. The reason
 * column holds `{"reasons": [...], "judgment": {...}}` as JSON, so a reader never parses English.
 */
export class RawDecisionLog implements DecisionSink {
  /** Prepared once: a run records hundreds of decisions, and preparing each was a tenth of a judgment's cost (bench/pipeline.bench.ts). */
  private insert: Statement | undefined;

  constructor(private readonly db: Db) {}

  /** Append one decision. */
  record(d: DecisionRecord): void {
    this.insert ??= this.db.prepare(
      `insert into retrieval_decisions (run_id, stage, subject_kind, subject, tier, decision, reason, model_call_id, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.insert
      .run(d.runId, d.stage, d.subjectKind, d.subject, d.tier ?? null, d.decision, JSON.stringify({ reasons: d.reasons, ...(d.judgment ? { judgment: d.judgment } : {}) }), d.modelCallId ?? null, new Date().toISOString());
  }

  /** Append a stage's decisions in one transaction: one write of the log instead of one per decision. */
  recordAll(decisions: readonly DecisionRecord[]): void {
    this.db.transaction(() => {
      for (const d of decisions) this.record(d);
    })();
  }
}
