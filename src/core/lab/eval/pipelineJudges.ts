/**
 * The judges `cra eval --pipeline` can put in place of the model: `yes` keeps every candidate (the
 * deterministic floor) and `oracle` answers yes exactly for the task's gold files and the symbols
 * its commit changed (the ceiling a perfect small model would reach). They exist only here, in
 * the evaluation: the product's stages take a judge only through the pipeline's `judge` input,
 * which no request, config key or command other than the evaluation's (`eval/start`, `cra eval`)
 * fills (pipelineJudges.test.ts checks that nothing outside src/core/lab/eval imports this file).
 */
import type { EvalJudgeKind } from '../../../shared/contract/eval';
import type { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';
import type { BinaryJudge, JudgeSetup, Judgment } from '../../features/retrieval';
import type { ChangedLines } from './goldLines';

/** Which judge an evaluation of the pipeline uses (the contract's list). */
export type { EvalJudgeKind };

/** A symbol's lines (1-based, inclusive). */
export interface Span {
  start: number;
  end: number;
}

/** What the oracle knows: the gold files, and per gold file the spans of its gold symbols. */
export interface GoldTruth {
  files: ReadonlySet<string>;
  symbols: ReadonlyMap<string, readonly Span[]>;
  /** Gold files where no symbol overlaps the change, so the symbol nearest to it stands in. */
  nearest: string[];
}

const answer = (verdict: 'yes' | 'no', model: string): Judgment => ({ verdict, read: 'exact', model, raw: verdict, promptTokens: 0, completionTokens: 0 });

/** Keeps everything: every judgment is yes. */
export const yesJudge: BinaryJudge = async () => answer('yes', 'eval:yes');

/** The item a judgment is about, read from what the judge sees of it (the stages' own descriptions); a group of symbols gives each one's span. */
export function itemOf(stage: string, document: string): { path: string; span?: Span; spans?: Span[] } {
  if (stage === 'precision_group') {
    const m = /^file: (.+)$/m.exec(document);
    const spans = [...document.matchAll(/^ {2}(\d+)-(\d+) /gm)].map((x) => ({ start: Number(x[1]), end: Number(x[2]) }));
    if (m && spans.length) return { path: m[1] as string, spans };
  } else if (stage === 'scope' || stage === 'precision_file') {
    const m = /^path: (.+)$/m.exec(document);
    if (m) return { path: m[1] as string };
  } else if (stage.startsWith('precision')) {
    const m = /^file: (.+):(\d+)-(\d+)$/m.exec(document);
    if (m) return { path: m[1] as string, span: { start: Number(m[2]), end: Number(m[3]) } };
  }
  // Failing loudly: an oracle that cannot tell the item would silently measure nothing.
  throw new Error(`The oracle judge cannot tell which item a ${stage} judgment is about (its description changed?): ${document.slice(0, 120)}`);
}

/**
 * Answers yes exactly for gold files (scope, precision's file judgments) and gold symbols (every precision pass: relevant,
 * primary, full source), and for a group of symbols past precision's caps that holds a gold one.
 * Anything else is a no.
 */
export function oracleJudge(truth: GoldTruth): BinaryJudge {
  return async (setup: JudgeSetup, document: string) => {
    const item = itemOf(setup.stage, document);
    if (!truth.files.has(item.path)) return answer('no', 'eval:oracle');
    const spans = item.spans ?? (item.span ? [item.span] : undefined);
    if (!spans) return answer('yes', 'eval:oracle');
    const gold = (truth.symbols.get(item.path) ?? []).some((s) => spans.some((span) => s.start === span.start && s.end === span.end));
    return answer(gold ? 'yes' : 'no', 'eval:oracle');
  };
}

const overlaps = (a: Span, b: Span) => a.start <= b.end && b.start <= a.end;
const within = (inner: Span, outer: Span) => outer.start <= inner.start && inner.end <= outer.end && (outer.start !== inner.start || outer.end !== inner.end);

/**
 * The gold symbols of each gold file, among those precision judges (top-level symbols and
 * methods): the innermost ones overlapping a changed range (a method, not its whole class). When
 * none overlaps (a change at module level), the symbol nearest to the first change stands in, so
 * the place of the edit is in the package; such files are listed in `nearest`. Without changed
 * lines for a file (tasks from a file, no commit) every symbol of it is gold.
 */
export function goldTruth(kb: KnowledgeBase, gold: readonly string[], changed: ChangedLines | undefined): GoldTruth {
  const symbols = new Map<string, Span[]>();
  const nearest: string[] = [];
  for (const path of gold) {
    const file = kb.getFileByPath(path);
    if (!file) continue;
    const spans = kb
      .getSymbolsForFile(file.id)
      .filter((s) => s.parentId === null || s.kind === 'method')
      .map((s) => ({ start: s.startLine, end: s.endLine }));
    const ranges = changed?.get(path);
    if (!ranges || ranges.length === 0) {
      symbols.set(path, spans);
      continue;
    }
    const hit = spans.filter((s) => ranges.some((r) => overlaps(s, r)));
    const innermost = hit.filter((s) => !hit.some((o) => within(o, s)));
    if (innermost.length > 0 || spans.length === 0) {
      symbols.set(path, innermost);
      continue;
    }
    const first = ranges[0] as Span;
    const distance = (s: Span) => Math.min(Math.abs(s.start - first.start), Math.abs(s.end - first.start));
    symbols.set(path, [[...spans].sort((a, b) => distance(a) - distance(b) || a.start - b.start)[0] as Span]);
    nearest.push(path);
  }
  return { files: new Set(gold), symbols, nearest };
}

/** A judge that counts its judgments per stage (scope, precision_pass1…3) and passes them on. */
export function countingJudge(inner: BinaryJudge): { judge: BinaryJudge; counts: Record<string, number> } {
  const counts: Record<string, number> = {};
  return {
    counts,
    judge: async (setup, document) => {
      counts[setup.stage] = (counts[setup.stage] ?? 0) + 1;
      return inner(setup, document);
    },
  };
}
