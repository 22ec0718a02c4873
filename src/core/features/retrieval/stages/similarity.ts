import type { KnowledgeBase } from '../../../knowledge/kb/knowledgeBase';
import type { LlmClient } from '../../../platform/llm/client';
import { judgeAll, judgmentFacts, judgmentReason } from '../judge';
import { judgeSetupOf, type ContextFile, type RetrievalStage, type StageContext } from '../stage';
import type { TaskRecord } from '../taskAnalysis';
import { describeFile } from './scope';

/** Settings of the similarity stage. */
export interface SimilarityOptions {
  /** At most this many pairs judged (default 45: every pair of the first 10 files); pairs past it are recorded as over the cap. */
  maxPairs?: number;
}

/** The question each pair is asked (docs/design.md, Binary judgments: "are these two files related?"). */
export const SIMILARITY_QUESTION = 'Are these two files related for this task: would a change to one for the task need a look at the other?';

/** The pairs to judge: every pair of the context's files in priority order, the first `maxPairs` of them (earlier files first). */
export function candidatePairs(files: readonly ContextFile[], maxPairs: number): { judged: Array<[ContextFile, ContextFile]>; overCap: Array<[ContextFile, ContextFile]> } {
  const all: Array<[ContextFile, ContextFile]> = [];
  // Ordered by the later file's rank, so the pairs among the first n files come before any pair with file n+1.
  for (let j = 1; j < files.length; j++) for (let i = 0; i < j; i++) all.push([files[i] as ContextFile, files[j] as ContextFile]);
  return { judged: all.slice(0, maxPairs), overCap: all.slice(maxPairs) };
}

/** Connected components of the related pairs, each in the files' priority order; only groups of two or more. */
export function groupsOf(files: readonly ContextFile[], related: ReadonlyArray<[string, string]>): string[][] {
  const parent = new Map(files.map((f) => [f.path, f.path]));
  const find = (p: string): string => {
    let r = p;
    while (parent.get(r) !== r) r = parent.get(r) as string;
    parent.set(p, r);
    return r;
  };
  for (const [a, b] of related) {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent.set(rb, ra);
  }
  const groups = new Map<string, string[]>();
  for (const f of files) groups.set(find(f.path), [...(groups.get(find(f.path)) ?? []), f.path]);
  return [...groups.values()].filter((g) => g.length > 1);
}

/**
 * The similarity stage: one binary judgment per candidate file pair ("related for this task?"),
 * the related pairs joined into groups (connected components). It keeps every file; the groups
 * go into the context (and the package, which keeps a group's files together), and each yes adds
 * a `related` reason to both files. Each pair is its own call and its own decision (stage
 * similarity, subject "a|b"); a default-deny is "not related".
 */
export class SimilarityStage implements RetrievalStage {
  readonly name = 'similarity';
  constructor(private readonly options: SimilarityOptions = {}) {}

  /** Judge the pairs and group the files. */
  async run(context: StageContext, kb: KnowledgeBase, task: TaskRecord, llm: LlmClient): Promise<StageContext> {
    const { judged, overCap } = candidatePairs(context.files, this.options.maxPairs ?? 45);
    const decisions: StageContext['decisions'] = overCap.map(([a, b]) => ({ subjectKind: 'pair', subject: `${a.path}|${b.path}`, decision: 'over-cap', reasons: [] }));
    const described = new Map(context.files.map((f) => [f.path, describeFile(kb, f)]));
    const docs = judged.map(([a, b]) => `File A:\n${described.get(a.path) ?? ''}\n\nFile B:\n${described.get(b.path) ?? ''}`);
    const items = judged.map(([a, b]) => ({ subjectKind: 'pair' as const, path: a.path, subject: `${a.path}|${b.path}` }));
    const verdicts = await judgeAll(judgeSetupOf(context, llm, task, 'similarity', SIMILARITY_QUESTION), docs, items);
    const related: Array<[string, string]> = [];
    const extra = new Map<string, ContextFile['reasons']>();
    judged.forEach(([a, b], i) => {
      const j = verdicts[i]!;
      const yes = j.verdict === 'yes';
      decisions.push({ subjectKind: 'pair', subject: `${a.path}|${b.path}`, decision: yes ? 'related' : 'unrelated', reasons: [judgmentReason(j)], judgment: judgmentFacts(j), ...(j.callId !== undefined ? { modelCallId: j.callId } : {}) });
      if (!yes) return;
      related.push([a.path, b.path]);
      const p = j.pYes !== undefined ? { probability: j.pYes } : {};
      extra.set(a.path, [...(extra.get(a.path) ?? []), { kind: 'related', detail: { with: b.path, model: j.model, ...p } }]);
      extra.set(b.path, [...(extra.get(b.path) ?? []), { kind: 'related', detail: { with: a.path, model: j.model, ...p } }]);
    });
    const files = context.files.map((f) => (extra.has(f.path) ? { ...f, reasons: [...f.reasons, ...(extra.get(f.path) ?? [])] } : f));
    return { ...context, files, groups: groupsOf(files, related), decisions };
  }
}
