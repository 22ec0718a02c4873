import type { Reason } from '../../../shared/contract/reasons';
import type { KnowledgeBase } from '../../kb/knowledgeBase';
import type { SymbolRecord } from '../../kb/types';
import type { LlmClient } from '../../llm/client';
import { judgeAll, judgmentFacts, judgmentReason, type Judgment } from '../judge';
import { judgeSetupOf, type ContextFile, type ContextSymbol, type RetrievalStage, type StageContext } from '../stage';
import type { TaskRecord } from '../taskAnalysis';

/** Settings of the precision stage. */
export interface PrecisionOptions {
  /** At most this many symbols judged per file (default 40); the rest are recorded as over the cap. */
  maxSymbolsPerFile?: number;
  /** At most this many symbols judged in all (default 150). */
  maxSymbols?: number;
}

/** The three questions of the cascade (binary-decomposition seed, Part 1). */
export const PRECISION_QUESTIONS = {
  precision_pass1: 'Is this symbol relevant to the task?',
  precision_pass2: 'Is this symbol directly involved in the change the task asks for (will its code be read closely or edited)?',
  precision_pass3: 'Does the task need the full source code of this symbol, rather than only its signature?',
} as const;

/** One symbol candidate: the record, its file, and how it was found. */
export interface SymbolCandidate {
  symbol: SymbolRecord;
  file: ContextFile;
  /** named-in-task / symbol-link; empty for the file's other symbols. */
  found: Reason[];
  /** Named in the task: relevant without a pass-1 judgment (as seed files skip scope's). */
  named: boolean;
}

const lower = (s: string) => s.toLowerCase();

/**
 * Deterministic symbol extraction over the files scope kept: each file's top-level symbols and
 * methods from the index; first those the task names (extraction or enrichment), then those linked
 * by a reference to a named symbol (calls it or is called by it), then the rest in source order.
 */
export function symbolCandidates(kb: KnowledgeBase, task: TaskRecord, files: readonly ContextFile[]): SymbolCandidate[] {
  const namedTexts = [...task.extraction.symbols.map((s) => s.text), ...(task.enrichment.status === 'ok' ? task.enrichment.symbols : [])];
  const named = new Map<string, string>();
  for (const t of namedTexts) {
    named.set(lower(t), t);
    // `Parser.parse` names `parse` in class Parser; a bare tail matches too.
    const tail = t.split('.').pop();
    if (tail && !named.has(lower(tail))) named.set(lower(tail), t);
  }
  const perFile = files.map((file) => ({ file, symbols: kb.getSymbolsForFile(file.fileId).filter((s) => s.parentId === null || s.kind === 'method') }));
  const namedOf = (s: SymbolRecord) => named.get(lower(s.qualifiedName)) ?? named.get(lower(s.name));
  // Links: every symbol reached by one reference edge from a named symbol anywhere in the kept files.
  const links = new Map<number, Reason>();
  for (const { symbols } of perFile) {
    for (const s of symbols) {
      const text = namedOf(s);
      if (!text) continue;
      for (const n of kb.getSymbolNeighbors(s.id, 'both')) {
        if (n.symbol && !links.has(n.symbol.id)) links.set(n.symbol.id, { kind: 'symbol-link', detail: { symbol: s.qualifiedName, direction: n.direction === 'outgoing' ? 'called-by' : 'calls' } });
      }
    }
  }
  const out: Array<SymbolCandidate & { rank: number; order: number }> = [];
  let order = 0;
  for (const { file, symbols } of perFile) {
    for (const s of symbols) {
      const text = namedOf(s);
      const link = links.get(s.id);
      const found: Reason[] = text ? [{ kind: 'named-in-task', detail: { text } }] : link ? [link] : [];
      out.push({ symbol: s, file, found, named: Boolean(text), rank: text ? 0 : link ? 1 : 2, order: order++ });
    }
  }
  return out.sort((a, b) => a.rank - b.rank || a.order - b.order).map(({ rank: _r, order: _o, ...c }) => c);
}

/** What the judge sees of a symbol: where it is, its signature, docstring and rationale comments. */
export function describeSymbol(kb: KnowledgeBase, c: SymbolCandidate, rationale: Map<number, string[]>): string {
  const s = c.symbol;
  const doc = s.docstring?.split('\n')[0]?.trim();
  const notes = rationale.get(s.id) ?? [];
  return [`symbol: ${s.qualifiedName} (${s.kind})`, `file: ${s.path}:${s.startLine}-${s.endLine}`, `signature: ${s.signature || s.name}`, doc ? `doc: ${doc}` : '', notes.length ? `notes:\n${notes.map((n) => `  ${n}`).join('\n')}` : ''].filter(Boolean).join('\n');
}

const callOf = (j: Judgment) => (j.callId !== undefined ? { modelCallId: j.callId } : {});

/**
 * The precision stage: for the files scope kept, extract their symbols deterministically
 * ({@link symbolCandidates}), then ask three binary questions in a cascade, each a pass over what
 * the previous one kept — relevant? (no → excluded) → directly involved? (yes → primary) → full
 * source needed? (yes → supporting, no → type_context). Symbols the task names skip pass 1. Each
 * judgment is its own call and its own decision (stages precision_pass1..3). A file keeps its
 * kept symbols; a file with symbols none of which was kept leaves the context; a file without
 * symbols (docs, config) stays as a whole file.
 */
export class PrecisionStage implements RetrievalStage {
  readonly name = 'precision';
  constructor(private readonly options: PrecisionOptions = {}) {}

  /** Extract, run the three passes, and attach the kept symbols to their files. */
  async run(context: StageContext, kb: KnowledgeBase, task: TaskRecord, llm: LlmClient): Promise<StageContext> {
    const all = symbolCandidates(kb, task, context.files);
    const perFileCap = this.options.maxSymbolsPerFile ?? 40;
    const seenPerFile = new Map<number, number>();
    const candidates: SymbolCandidate[] = [];
    const decisions: StageContext['decisions'] = [];
    for (const c of all) {
      const n = (seenPerFile.get(c.file.fileId) ?? 0) + 1;
      seenPerFile.set(c.file.fileId, n);
      // Named symbols are never capped away: the task asked for them.
      if (c.named || (n <= perFileCap && candidates.length < (this.options.maxSymbols ?? 150))) candidates.push(c);
      else decisions.push({ stage: 'precision_pass1', subjectKind: 'symbol', subject: `${c.symbol.path}:${c.symbol.qualifiedName}`, decision: 'over-cap', reasons: c.found });
    }
    const rationale = new Map<number, string[]>();
    for (const f of context.files) for (const r of kb.getRationaleComments(f.fileId)) if (r.symbolId !== null) rationale.set(r.symbolId, [...(rationale.get(r.symbolId) ?? []), `${r.tag}: ${r.text}`]);
    const docs = new Map(candidates.map((c) => [c, describeSymbol(kb, c, rationale)]));
    const pass = (stage: keyof typeof PRECISION_QUESTIONS, items: SymbolCandidate[]) => judgeAll(judgeSetupOf(context, llm, task, stage, PRECISION_QUESTIONS[stage]), items.map((c) => docs.get(c) as string));
    const subject = (c: SymbolCandidate) => `${c.symbol.path}:${c.symbol.qualifiedName}`;
    const reasons = new Map<SymbolCandidate, Reason[]>(candidates.map((c) => [c, [...c.found]]));
    const pYes = new Map<SymbolCandidate, number>();

    // Pass 1: relevant, or excluded. Named symbols are relevant without a call.
    const toJudge = candidates.filter((c) => !c.named);
    const v1 = await pass('precision_pass1', toJudge);
    const relevant = candidates.filter((c) => c.named);
    for (const c of relevant) decisions.push({ stage: 'precision_pass1', subjectKind: 'symbol', subject: subject(c), decision: 'relevant', reasons: c.found });
    toJudge.forEach((c, i) => {
      const j = v1[i] as Judgment;
      reasons.get(c)?.push(judgmentReason(j));
      if (j.pYes !== undefined) pYes.set(c, j.pYes);
      decisions.push({ stage: 'precision_pass1', subjectKind: 'symbol', subject: subject(c), decision: j.verdict === 'yes' ? 'relevant' : 'excluded', reasons: reasons.get(c) ?? [], judgment: judgmentFacts(j), ...callOf(j) });
      if (j.verdict === 'yes') relevant.push(c);
    });

    // Pass 2: primary, or on to pass 3.
    const role = new Map<SymbolCandidate, ContextSymbol['role']>();
    const verdict = (c: SymbolCandidate, j: Judgment, n: 2 | 3): Reason =>
      j.read === 'default-deny' ? judgmentReason(j) : { kind: 'precision-verdict', detail: { pass: n, answer: j.verdict, model: j.model, ...(j.pYes !== undefined ? { probability: j.pYes } : {}) } };
    const v2 = await pass('precision_pass2', relevant);
    const rest: SymbolCandidate[] = [];
    relevant.forEach((c, i) => {
      const j = v2[i] as Judgment;
      reasons.get(c)?.push(verdict(c, j, 2));
      decisions.push({ stage: 'precision_pass2', subjectKind: 'symbol', subject: subject(c), decision: j.verdict === 'yes' ? 'primary' : 'not-primary', reasons: reasons.get(c) ?? [], judgment: judgmentFacts(j), ...callOf(j) });
      if (j.verdict === 'yes') role.set(c, 'primary');
      else rest.push(c);
    });

    // Pass 3: full source (supporting) or signature (type_context); a default-deny gives the cheaper signature.
    const v3 = await pass('precision_pass3', rest);
    rest.forEach((c, i) => {
      const j = v3[i] as Judgment;
      reasons.get(c)?.push(verdict(c, j, 3));
      const r = j.verdict === 'yes' ? 'supporting' : 'type_context';
      decisions.push({ stage: 'precision_pass3', subjectKind: 'symbol', subject: subject(c), decision: r, reasons: reasons.get(c) ?? [], judgment: judgmentFacts(j), ...callOf(j) });
      role.set(c, r);
    });

    const hadSymbols = new Set(all.map((c) => c.file.fileId));
    const files: ContextFile[] = [];
    for (const f of context.files) {
      const kept = candidates.filter((c) => c.file.fileId === f.fileId && role.has(c));
      if (hadSymbols.has(f.fileId) && kept.length === 0) {
        decisions.push({ stage: 'precision', subjectKind: 'file', subject: f.path, tier: String(f.tier), decision: 'excluded', reasons: f.reasons });
        continue;
      }
      const symbols: ContextSymbol[] = kept
        // Primary first, then by confidence, then source order.
        .sort((a, b) => rank(role.get(a)) - rank(role.get(b)) || (pYes.get(b) ?? 1) - (pYes.get(a) ?? 1) || a.symbol.startLine - b.symbol.startLine)
        .map((c) => {
          const s = c.symbol;
          const p = pYes.get(c);
          return { symbolId: s.id, name: s.name, qualifiedName: s.qualifiedName, kind: s.kind, signature: s.signature || s.name, startLine: s.startLine, endLine: s.endLine, parentId: s.parentId, role: role.get(c) as ContextSymbol['role'], reasons: reasons.get(c) ?? [], ...(p !== undefined ? { pYes: p } : {}) };
        });
      files.push({ ...f, symbols });
    }
    return { ...context, files, decisions };
  }
}

const rank = (r: ContextSymbol['role'] | undefined) => (r === 'primary' ? 0 : r === 'supporting' ? 1 : 2);
