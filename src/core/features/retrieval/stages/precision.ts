import type { Reason } from '../../../../shared/contract/reasons';
import type { KnowledgeBase } from '../../../knowledge/kb/knowledgeBase';
import type { LlmClient } from '../../../platform/llm/client';
import { fileItem, judgeAll, judgmentFacts, judgmentReason, type Judgment } from '../judge';
import { judgeSetupOf, type ContextFile, type ContextSymbol, type RetrievalStage, type StageContext } from '../stage';
import { describeFile, SCOPE_QUESTION } from './scope';
import type { TaskRecord } from '../taskAnalysis';
import { describeSymbol, librarySymbols, symbolCandidates, type SymbolCandidate } from './precisionExtract';
import { PRECISION_DEFAULTS } from '../../../../shared/defaults';

export { describeSymbol, symbolCandidates, type SymbolCandidate } from './precisionExtract';

/** Settings of the precision stage. */
export interface PrecisionOptions {
  /** At most this many symbols judged one by one per file (default 40); the rest are judged in groups. */
  maxSymbolsPerFile?: number;
  /** At most this many symbols judged one by one in all (default 150); the rest are judged in groups. */
  maxSymbols?: number;
  /** A file's symbols past the caps are judged in groups of at most this many, one judgment each (default 40). */
  groupSize?: number;
}

/** The three questions of the cascade (docs/design.md, Binary judgments). */
export const PRECISION_QUESTIONS = {
  precision_pass1: 'Is this symbol relevant to the task?',
  precision_pass2: 'Is this symbol directly involved in the change the task asks for (will its code be read closely or edited)?',
  precision_pass3: 'Does the task need the full source code of this symbol, rather than only its signature?',
} as const;

/** The question about a group of a file's symbols past the caps (call stage precision_group). */
export const GROUP_QUESTION = 'Is any of these symbols relevant to the task?';

/**
 * What the judge sees of a group: the file, then one line per symbol (its lines, name, kind and the
 * first line of its signature), in the order the extraction ranked them.
 */
export function describeGroup(group: readonly SymbolCandidate[]): string {
  const first = group[0]?.symbol.path ?? '';
  const line = (c: SymbolCandidate) => {
    const s = c.symbol;
    const sig = (s.signature || s.name).split('\n')[0]?.slice(0, 120) ?? '';
    return `  ${s.startLine}-${s.endLine} ${s.qualifiedName} (${s.kind}): ${sig}`;
  };
  return [`file: ${first}`, `symbols (${group.length}):`, ...group.map(line)].join('\n');
}

const callOf = (j: Judgment) => (j.callId !== undefined ? { modelCallId: j.callId } : {});

/**
 * The precision stage: for the files scope kept, extract their symbols deterministically
 * ({@link symbolCandidates}), then ask three binary questions in a cascade, each a pass over what
 * the previous one kept — relevant? (no → excluded) → directly involved? (yes → primary) → full
 * source needed? (yes → supporting, no → type_context). Symbols the task names skip pass 1. Each
 * judgment is its own call and its own decision (stages precision_pass1..3).
 *
 * The caps bound the judgments one by one; a file's symbols past them are not dropped unseen: they
 * are judged in groups (one judgment per group of at most `groupSize`, "is any of these relevant?"),
 * and a yes keeps the group's signatures as type_context, so a large file's relevant symbol deep
 * in its list still reaches the package (as a signature; a refinement can ask for its body).
 *
 * A file keeps its kept symbols, and the library symbols they use ({@link librarySymbols}: from
 * outside the repository, type_context without a judgment); a file with symbols none of which was
 * kept leaves the context, unless it was given with the task (tier 0: a plan's file, a refinement's
 * evidence): that one stays as a whole file, placed last and only where the budget has room; a
 * file without symbols (docs, config) stays as a whole file — after one judgment (call stage
 * precision_file, scope's question) when it is only a search hit, which nothing judged before.
 */
export class PrecisionStage implements RetrievalStage {
  readonly name = 'precision';
  constructor(private readonly options: PrecisionOptions = {}) {}

  /** Extract, run the three passes and the group judgments, and attach the kept symbols to their files. */
  async run(context: StageContext, kb: KnowledgeBase, task: TaskRecord, llm: LlmClient): Promise<StageContext> {
    const all = symbolCandidates(kb, task, context.files);
    const { candidates, overCap } = capped(all, context.files, this.options);
    const decisions: StageContext['decisions'] = [];
    const rationale = new Map<number, string[]>();
    for (const f of context.files) for (const r of kb.getRationaleComments(f.fileId)) if (r.symbolId !== null) rationale.set(r.symbolId, [...(rationale.get(r.symbolId) ?? []), `${r.tag}: ${r.text}`]);
    const docs = new Map(candidates.map((c) => [c, describeSymbol(kb, c, rationale)]));
    const subject = (c: SymbolCandidate) => `${c.symbol.path}:${c.symbol.qualifiedName}`;
    const symbolItem = (c: SymbolCandidate) => ({ subjectKind: 'symbol' as const, path: c.symbol.path, symbol: c.symbol.qualifiedName, subject: subject(c) });
    const pass = (stage: keyof typeof PRECISION_QUESTIONS, items: SymbolCandidate[]) => judgeAll(judgeSetupOf(context, llm, task, stage, PRECISION_QUESTIONS[stage]), items.map((c) => docs.get(c) as string), items.map(symbolItem));
    const reasons = new Map<SymbolCandidate, Reason[]>(all.map((c) => [c, [...c.found]]));
    const pYes = new Map<SymbolCandidate, number>();
    const role = new Map<SymbolCandidate, ContextSymbol['role']>();

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

    // Past the caps: one judgment per group; a yes keeps the group's signatures (type_context).
    const groups = groupsOf(overCap, this.options.groupSize ?? 40);
    const groupItem = (g: SymbolCandidate[]) => ({ subjectKind: 'group' as const, path: g[0]?.symbol.path ?? '', subject: `${g[0]?.symbol.path ?? ''} (${g.length} symbols)` });
    const vg = await judgeAll(judgeSetupOf(context, llm, task, 'precision_group', GROUP_QUESTION), groups.map(describeGroup), groups.map(groupItem));
    groups.forEach((g, i) => {
      const j = vg[i] as Judgment;
      const why: Reason = j.read === 'default-deny' ? judgmentReason(j) : { kind: 'group-verdict', detail: { size: g.length, answer: j.verdict, model: j.model, ...(j.pYes !== undefined ? { probability: j.pYes } : {}) } };
      for (const c of g) {
        reasons.get(c)?.push(why);
        if (j.verdict === 'yes') role.set(c, 'type_context');
        decisions.push({ stage: 'precision_group', subjectKind: 'symbol', subject: subject(c), decision: j.verdict === 'yes' ? 'type_context' : 'excluded', reasons: reasons.get(c) ?? [], judgment: judgmentFacts(j), ...callOf(j) });
      }
    });

    // Pass 2: primary, or on to pass 3.
    const verdict = (j: Judgment, n: 2 | 3): Reason =>
      j.read === 'default-deny' ? judgmentReason(j) : { kind: 'precision-verdict', detail: { pass: n, answer: j.verdict, model: j.model, ...(j.pYes !== undefined ? { probability: j.pYes } : {}) } };
    const v2 = await pass('precision_pass2', relevant);
    const rest: SymbolCandidate[] = [];
    relevant.forEach((c, i) => {
      const j = v2[i] as Judgment;
      reasons.get(c)?.push(verdict(j, 2));
      decisions.push({ stage: 'precision_pass2', subjectKind: 'symbol', subject: subject(c), decision: j.verdict === 'yes' ? 'primary' : 'not-primary', reasons: reasons.get(c) ?? [], judgment: judgmentFacts(j), ...callOf(j) });
      if (j.verdict === 'yes') role.set(c, 'primary');
      else rest.push(c);
    });

    // Pass 3: full source (supporting) or signature (type_context); a default-deny gives the cheaper signature.
    const v3 = await pass('precision_pass3', rest);
    rest.forEach((c, i) => {
      const j = v3[i] as Judgment;
      reasons.get(c)?.push(verdict(j, 3));
      const r = j.verdict === 'yes' ? 'supporting' : 'type_context';
      decisions.push({ stage: 'precision_pass3', subjectKind: 'symbol', subject: subject(c), decision: r, reasons: reasons.get(c) ?? [], judgment: judgmentFacts(j), ...callOf(j) });
      role.set(c, r);
    });

    const hadSymbols = new Set(all.map((c) => c.file.fileId));
    // A search hit without symbols (docs, a changelog) was judged by no one: one file judgment, else it would go in whole unseen.
    const unjudged = context.files.filter((f) => !hadSymbols.has(f.fileId) && f.reasons.length > 0 && f.reasons.every((r) => r.kind === 'seed'));
    const vf = await judgeAll(judgeSetupOf(context, llm, task, 'precision_file', SCOPE_QUESTION), unjudged.map((f) => describeFile(kb, f)), unjudged.map((f) => fileItem(f.path)));
    const fileVerdicts = new Map(unjudged.map((f, i) => [f.fileId, vf[i] as Judgment]));
    const files: ContextFile[] = [];
    for (const f of context.files) {
      const fj = fileVerdicts.get(f.fileId);
      if (fj) {
        const reasons = [...f.reasons, judgmentReason(fj)];
        decisions.push({ stage: 'precision_file', subjectKind: 'file', subject: f.path, tier: String(f.tier), decision: fj.verdict === 'yes' ? 'included' : 'excluded', reasons, judgment: judgmentFacts(fj), ...callOf(fj) });
        if (fj.verdict === 'yes') files.push({ ...f, reasons, ...(fj.pYes !== undefined ? { pYes: fj.pYes } : {}) });
        continue;
      }
      const kept = all.filter((c) => c.file.fileId === f.fileId && role.has(c));
      if (hadSymbols.has(f.fileId) && kept.length === 0) {
        // A file given with the task (a plan's, a refinement's evidence) stays, whole, where it fits.
        if (isGiven(f)) {
          decisions.push({ stage: 'precision', subjectKind: 'file', subject: f.path, tier: String(f.tier), decision: 'whole-file', reasons: f.reasons });
          files.push({ ...f, symbols: [] });
          continue;
        }
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
      // Library symbols the kept ones use: type_context without a judgment.
      const library = librarySymbols(kb, f.fileId, kept.map((c) => c.symbol));
      for (const l of library) decisions.push({ stage: 'precision', subjectKind: 'symbol', subject: `${f.path}:${l.qualifiedName}`, decision: 'type_context', reasons: l.reasons });
      files.push({ ...f, symbols: [...symbols, ...library] });
    }
    return { ...context, files, decisions };
  }
}

/**
 * Split the candidates into those judged one by one and those past the caps. The total cap is
 * shared across files round-robin (each file's best candidates first), so the files early in the
 * context do not use it all up; named and linked symbols come first, and named symbols are never
 * capped away: the task asked for them.
 */
function capped(all: readonly SymbolCandidate[], files: readonly ContextFile[], options: PrecisionOptions): { candidates: SymbolCandidate[]; overCap: SymbolCandidate[] } {
  const perFileCap = options.maxSymbolsPerFile ?? PRECISION_DEFAULTS.maxSymbolsPerFile;
  const maxSymbols = options.maxSymbols ?? PRECISION_DEFAULTS.maxSymbols;
  const seenPerFile = new Map<number, number>();
  const position = new Map<SymbolCandidate, number>();
  for (const c of all) {
    const n = (seenPerFile.get(c.file.fileId) ?? 0) + 1;
    seenPerFile.set(c.file.fileId, n);
    position.set(c, n);
  }
  const fileOrder = new Map(files.map((f, i) => [f.fileId, i]));
  const priority = (c: SymbolCandidate) => (c.found.length ? 0 : 1);
  const ordered = [...all].sort((a, b) => priority(a) - priority(b) || position.get(a)! - position.get(b)! || (fileOrder.get(a.file.fileId) ?? 0) - (fileOrder.get(b.file.fileId) ?? 0));
  const taken = new Set<SymbolCandidate>();
  for (const c of ordered) if (c.named || (position.get(c)! <= perFileCap && taken.size < maxSymbols)) taken.add(c);
  return { candidates: all.filter((c) => taken.has(c)), overCap: all.filter((c) => !taken.has(c)) };
}

/** A file's symbols past the caps in groups of at most `size`, each group within one file, in extraction order. */
export function groupsOf(overCap: readonly SymbolCandidate[], size: number): SymbolCandidate[][] {
  const perFile = new Map<number, SymbolCandidate[]>();
  for (const c of overCap) perFile.set(c.file.fileId, [...(perFile.get(c.file.fileId) ?? []), c]);
  const out: SymbolCandidate[][] = [];
  const n = Math.max(1, size);
  for (const list of perFile.values()) for (let i = 0; i < list.length; i += n) out.push(list.slice(i, i + n));
  return out;
}

/** Given with the task (tier 0: a plan's file, a refinement's evidence), not just carried over from the previous package. */
const isGiven = (f: ContextFile) => f.tier === 0 && !f.reasons.some((r) => r.kind === 'refinement' && r.detail.evidence === 'previous-package');

const rank = (r: ContextSymbol['role'] | undefined) => (r === 'primary' ? 0 : r === 'supporting' ? 1 : 2);
