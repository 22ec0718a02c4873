/**
 * Plan mode (docs/design.md, Plan mode): one atomic pass — task analysis → retrieval (scope) → the reasoning model
 * (stage `plan`) writes the plan — validated, retried once with the validation errors, and saved
 * as a PlanArtifact by the caller.
 */
import { AppError } from '../../../shared/contract';
import { PLAN_JSON_SCHEMA, type PlanArtifact } from '../../../shared/contract/plans';
import type { KnowledgeBase } from '../../knowledge/kb/knowledgeBase';
import type { LlmClient } from '../../platform/llm/client';
import type { CallLogger } from '../../platform/llm/types';
import type { DecisionSink } from '../retrieval';
import { runPipeline } from '../retrieval';
import { scopeCandidates, ScopeStage, type ScopeOptions } from '../retrieval';
import { analyzeTask } from '../retrieval';
import { newPlanId } from './planStore';
import { readPlanReply, type PlanRepoView } from './planValidate';

/** The planner's instructions: the schema in words, the rules the checks enforce. */
export const PLAN_SYSTEM = [
  'You plan a coding task on a repository. You do not write code.',
  'Reply with one JSON object only: {"task_summary": one sentence, "affected_files": [{"path", "role": "modify"|"create"|"delete", "changes": [{"symbol", "action": "modify"|"add"|"delete"|"rename", "description": what changes and why, "depends_on": ["path:Symbol", ...], "depended_by": ["path:Symbol", ...]}]}], "execution_order": [every affected path once], "rationale": the approach}.',
  'Rules: use paths of the repository as given; a new file has role "create". Never put code or code blocks in a description. Dependencies must not form a cycle, and execution_order lists a file after every file it depends on.',
].join('\n');

/** Everything one plan pass needs. */
export interface PlanInput {
  kb: KnowledgeBase;
  repoId: string;
  task: string;
  llm: LlmClient;
  runId?: string;
  log?: CallLogger;
  signal?: AbortSignal;
  /** Judge scope candidates with the scope model; default false: seeds and their neighbours, unjudged. */
  judgeScope?: boolean;
  /** Where scope decisions go when they are judged (the repository's raw DB). */
  decisions?: DecisionSink;
  /** Scope settings (the config's [retrieval] keys; default: the scope defaults). */
  scope?: ScopeOptions;
  /** Most files described to the planner (default 12). */
  maxContextFiles?: number;
  /** The commit the index describes (recorded with the plan). */
  commit?: string;
  /** Called as the pass moves on (`task analysis`, `scope`, `plan`, `plan (retry)`). */
  onPhase?: (phase: string) => void;
}

/** A plan the model could not get right in two attempts; `details.errors` holds the last attempt's problems. */
export class PlanInvalidError extends AppError {
  constructor(readonly errors: string[], readonly attempts: number) {
    super('MODEL_ERROR', `The model's plan was invalid ${attempts === 1 ? 'once' : `${attempts} times`}; last problems:\n${errors.map((e) => `  - ${e}`).join('\n')}`, { details: { errors, attempts } });
    this.name = 'PlanInvalidError';
  }
}

/** How a file is described to the planner: its path, language, docstring and top-level symbols. */
export function describeForPlan(kb: KnowledgeBase, path: string): string {
  const file = kb.getFileByPath(path);
  if (!file) return `### ${path}`;
  const symbols = kb.getSymbolsForFile(file.id).filter((s) => s.parentId === null || s.kind === 'method').slice(0, 25).map((s) => `- ${s.signature || s.qualifiedName}`);
  const doc = kb.getDocstringsForFile(file.id).moduleDoc?.split('\n')[0];
  return [`### ${path} (${file.language})`, doc ? `About: ${doc}` : '', ...symbols].filter(Boolean).join('\n');
}

/** The plan prompt: the task, what retrieval found, and (on a retry) the previous reply's problems. */
export function planPrompt(task: string, files: string[], describe: (path: string) => string, problems?: { errors: string[]; reply: string }): string {
  const parts = ['## Task', task, '', '## Repository files in scope', ...(files.length ? files.map(describe) : ['(none found; name files from the task)'])];
  if (problems) {
    parts.push('', '## Your previous reply', problems.reply.slice(0, 6000), '', '## It was invalid', ...problems.errors.map((e) => `- ${e}`), '', 'Reply with the corrected plan as one JSON object only.');
  }
  return parts.join('\n');
}

/**
 * Make a plan: analyse the task, gather scope (judged by the scope model when asked, else the
 * seeds and their nearest neighbours without model calls), ask the reasoning model (stage `plan`,
 * structured output with the plan's JSON schema) and check the reply; an invalid plan gets one
 * retry that names its problems, then fails with a PlanInvalidError listing them.
 */
export async function createPlan(input: PlanInput): Promise<PlanArtifact> {
  const { kb, llm, signal } = input;
  input.onPhase?.('task analysis');
  const task = await analyzeTask(input.task, kb, { llm, runId: input.runId, log: input.log, signal });
  input.onPhase?.('scope');
  let files: string[];
  if (input.judgeScope) {
    if (!input.decisions) throw new Error('A judged scope needs a decision sink.');
    const result = await runPipeline({ stages: [new ScopeStage(input.scope)], kb, task, llm, runId: input.runId ?? task.id, budgetTokens: 1_000_000, decisions: input.decisions, log: input.log, signal });
    files = result.context.files.map((f) => f.path);
  } else {
    files = (await scopeCandidates(kb, task, input.scope ?? {}, signal)).map((c) => c.path);
  }
  // Files the model's task analysis named (checked against the index) come first after the seeds.
  if (task.enrichment.status === 'ok') files = [...new Set([...files.slice(0, 1), ...task.enrichment.files, ...files.slice(1)])];
  files = files.slice(0, input.maxContextFiles ?? 12);

  const repo: PlanRepoView = { hasFile: (path) => kb.getFileByPath(path) !== null };
  const describe = (path: string) => describeForPlan(kb, path);
  let problems: { errors: string[]; reply: string } | undefined;
  for (let attempt = 1; attempt <= 2; attempt++) {
    input.onPhase?.(attempt === 1 ? 'plan' : 'plan (retry)');
    const reply = await llm.complete(planPrompt(task.text, files, describe, problems), {
      stage: 'plan',
      system: PLAN_SYSTEM,
      format: PLAN_JSON_SCHEMA as unknown as Record<string, unknown>,
      temperature: 0,
      runId: input.runId,
      log: input.log,
      signal,
    });
    const reading = readPlanReply(reply.text, repo);
    if (reading.ok) {
      return {
        id: newPlanId(),
        repoId: input.repoId,
        task: task.text,
        taskId: task.id,
        ...(input.runId ? { runId: input.runId } : {}),
        createdAt: new Date().toISOString(),
        model: reply.model,
        version: 1,
        ...(input.commit ? { commit: input.commit } : {}),
        attempts: attempt,
        contextFiles: files,
        plan: reading.plan,
      };
    }
    problems = { errors: reading.errors, reply: reply.text };
  }
  throw new PlanInvalidError(problems?.errors ?? [], 2);
}
