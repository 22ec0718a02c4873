/**
 * Refinement re-entry (docs/design.md, Refinement requests): the solve loop, finding the
 * context insufficient, sends a RefinementRequest with concrete evidence on the same task's
 * session; retrieval reads back the previous final context, adds what the evidence names (as
 * tier-0 files, never judged; named symbols skip precision's first pass), re-runs the stages,
 * writes the new final context and returns an updated package within the same budget. Bounded by
 * max_refinement_loops.
 */
import { AppError } from '../../../shared/contract';
import type { Reason } from '../../../shared/contract/reasons';
import type { ContextPackage } from '../../../shared/contract/retrieval';
import type { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';
import { buildPackage } from './package';
import { buildStages, optional, type RetrievalDeps, type StageName, type StageOptions } from './pipeline';
import type { RetrievalSession } from './session';
import { runPipeline, type PipelineResult, type SerializedContext } from './stage';
import type { TaskRecord } from './taskAnalysis';
import { extractTask, type SymbolMention } from './taskExtract';

/** What the solve loop found missing, as evidence (docs/design.md, Refinement requests). At least one list must name something. */
export interface RefinementRequest {
  reason: string;
  missingFiles: string[];
  missingSymbols: string[];
  missingTests: string[];
  errorSignatures: string[];
}

/** What a re-entry needs besides the session: the retrieval deps and the loop bound from the config. */
export interface RefineDeps extends RetrievalDeps {
  /** [retrieval] max_refinement_loops: re-entries allowed per task. */
  maxRefinementLoops: number;
  options?: StageOptions;
}

/** An updated package, the runner's result, which refinement this was (1-based) and what the evidence resolved to. */
export interface Refinement {
  package: ContextPackage;
  result: PipelineResult;
  loop: number;
  /** Evidence that named nothing in the index (kept in the session and the raw log, not used). */
  unresolved: string[];
}

/** Check a request: trimmed lists, and at least one piece of concrete evidence (else VALIDATION, saying what to send). */
export function validateRefinementRequest(request: RefinementRequest): RefinementRequest {
  const clean = (xs: unknown) => (Array.isArray(xs) ? xs.filter((x): x is string => typeof x === 'string').map((x) => x.trim()).filter(Boolean) : []);
  const r: RefinementRequest = { reason: String(request.reason ?? '').trim(), missingFiles: clean(request.missingFiles), missingSymbols: clean(request.missingSymbols), missingTests: clean(request.missingTests), errorSignatures: clean(request.errorSignatures) };
  if (!r.missingFiles.length && !r.missingSymbols.length && !r.missingTests.length && !r.errorSignatures.length) {
    throw new AppError('VALIDATION', 'A refinement request needs concrete evidence: missing files, symbols or tests, or error signatures — "needs more context" alone is refused.');
  }
  return r;
}

type Evidence = Extract<Reason, { kind: 'refinement' }>['detail']['evidence'];

/** The files and symbols the evidence names in the index, and the evidence that named nothing. */
export function resolveEvidence(kb: KnowledgeBase, r: RefinementRequest): { files: Array<{ path: string; reason: Reason }>; symbols: SymbolMention[]; unresolved: string[] } {
  const files: Array<{ path: string; reason: Reason }> = [];
  const symbols: SymbolMention[] = [];
  const unresolved: string[] = [];
  const addFile = (path: string, evidence: Evidence, text: string) => {
    if (!files.some((f) => f.path === path)) files.push({ path, reason: { kind: 'refinement', detail: { evidence, text } } });
  };
  const bySymbol = (name: string, evidence: Evidence): boolean => {
    const defs = kb.searchSymbolsByName(name, 5);
    for (const d of defs) addFile(d.path, evidence, name);
    if (defs.length) symbols.push({ text: name, definedIn: [...new Set(defs.map((d) => d.path))] });
    return defs.length > 0;
  };
  for (const p of r.missingFiles) {
    const f = kb.getFileByPath(p.replace(/^\.\//, ''));
    if (f) addFile(f.path, 'missing-file', p);
    else unresolved.push(`file ${p}`);
  }
  for (const s of r.missingSymbols) if (!bySymbol(s, 'missing-symbol')) unresolved.push(`symbol ${s}`);
  for (const t of r.missingTests) {
    const f = kb.getFileByPath(t.replace(/^\.\//, ''));
    if (f) addFile(f.path, 'missing-test', t);
    else if (!bySymbol(t.split('::').pop() ?? t, 'missing-test')) unresolved.push(`test ${t}`);
  }
  for (const sig of r.errorSignatures) {
    const x = extractTask(sig, kb);
    const paths = [...x.files.flatMap((f) => (f.path ? [f.path] : [])), ...x.errors.flatMap((e) => e.frames.flatMap((fr) => (fr.path ? [fr.path] : []))), ...x.symbols.flatMap((s) => s.definedIn)];
    for (const p of paths) addFile(p, 'error-signature', sig.slice(0, 200));
    symbols.push(...x.symbols.filter((s) => s.definedIn.length));
    if (!paths.length) unresolved.push(`error ${sig.slice(0, 80)}`);
  }
  return { files, symbols, unresolved };
}

/**
 * Re-enter retrieval for the same task with a refinement request. Refused (VALIDATION) without
 * concrete evidence, past `maxRefinementLoops`, or on a session with no finished retrieval.
 * Writes `refinement_request` first, then — through the runner — the stages' outputs and
 * progress (loop n) and the new `final_context`; the package keeps the task id and the budget of
 * the first retrieval. The previous package's files stay in (tier 0, `previous-package`).
 */
export async function refineContext(session: RetrievalSession, request: RefinementRequest, deps: RefineDeps): Promise<Refinement> {
  const r = validateRefinementRequest(request);
  if (!Number.isInteger(deps.maxRefinementLoops) || deps.maxRefinementLoops < 0) throw new Error(`maxRefinementLoops must be a whole number ≥ 0 (got ${deps.maxRefinementLoops}).`);
  const done = session.get<number>('refinement_loops') ?? 0;
  if (done >= deps.maxRefinementLoops) throw new AppError('VALIDATION', `Task ${session.taskId} was refined ${done} time${done === 1 ? '' : 's'}: the limit ([retrieval] max_refinement_loops) is ${deps.maxRefinementLoops}.`);
  const previous = session.get<SerializedContext>('final_context');
  const task = session.get<TaskRecord>('task');
  const budget = session.get<{ tokens: number; safetyMargin?: number }>('budget');
  const names = session.get<StageName[]>('stages');
  if (!previous || !task || !budget || !names) throw new AppError('VALIDATION', `Task ${session.taskId} has no finished retrieval in its session to refine; run the retrieval first.`);
  session.set('refinement_request', r);
  const evidence = resolveEvidence(deps.kb, r);
  const loop = done + 1;
  for (const f of evidence.files) deps.decisions.record({ runId: deps.runId, stage: 'refinement', subjectKind: 'file', subject: f.path, tier: '0', decision: 'requested', reasons: [f.reason], judgment: { loop } });
  for (const u of evidence.unresolved) deps.decisions.record({ runId: deps.runId, stage: 'refinement', subjectKind: 'file', subject: u, decision: 'unresolved', reasons: [], judgment: { loop } });
  // The files given with the task (a plan's) keep their own reason; the rest of the previous package comes back as such.
  const given = (task.givenFiles ?? []).filter((g) => !evidence.files.some((e) => e.path === g.path));
  const kept = previous.files.filter((f) => !evidence.files.some((e) => e.path === f.path) && !given.some((g) => g.path === f.path)).map((f) => ({ path: f.path, reason: { kind: 'refinement', detail: { evidence: 'previous-package', text: '' } } as Reason }));
  const refined: TaskRecord = {
    ...task,
    givenFiles: [...evidence.files, ...given, ...kept],
    extraction: { ...task.extraction, symbols: [...task.extraction.symbols, ...evidence.symbols.filter((s) => !task.extraction.symbols.some((t) => t.text === s.text))] },
  };
  // Routing already chose on the first pass; a refinement re-runs the stages that ran.
  const ran = names.filter((n) => n !== 'routing');
  const safetyMargin = deps.safetyMargin ?? budget.safetyMargin;
  const result = await runPipeline({ stages: buildStages(ran, deps.options), kb: deps.kb, task: refined, llm: deps.llm, runId: deps.runId, budgetTokens: budget.tokens, decisions: deps.decisions, session, loop, readSource: deps.readSource, ...optional(deps), ...(safetyMargin !== undefined ? { safetyMargin } : {}) });
  session.set('refinement_loops', loop);
  const pkg = buildPackage({ task: refined, files: result.context.files, budgetTokens: budget.tokens, readSource: deps.readSource, kb: deps.kb, ...(safetyMargin !== undefined ? { safetyMargin } : {}), ...(result.context.groups ? { groups: result.context.groups } : {}) });
  return { package: pkg, result, loop, unresolved: evidence.unresolved };
}
