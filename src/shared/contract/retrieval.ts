import { z } from 'zod';
import { event, request } from './define';
import type { RunStarted, Sequenced } from './runInfo';
import { modelNameSchema } from './models';
import type { Reason } from './reasons';
import { budgetSchema, type BudgetInput } from './inputs';
import { DEFAULT_RETRIEVAL_STAGES, RETRIEVAL_STAGE_NAMES, retrievalStageListSchema, type RetrievalStageName } from './stages';

/** How much of a symbol the execute model sees: primary in full; supporting in full when it fits; type_context as a signature. */
export type SymbolRole = 'primary' | 'supporting' | 'type_context';

/** One piece of a file in a context package: a symbol in full or as its signature, or a whole file without symbols. */
export interface PackageItem {
  /** Absent for a whole file. */
  symbol?: { qualifiedName: string; kind: string; role: SymbolRole };
  detail: 'full' | 'signature' | 'file';
  startLine: number;
  endLine: number;
  text: string;
  /** Estimated tokens of the item as rendered. */
  tokens: number;
  /** Why it is here: relation, verdicts with P(yes), and `demoted` when its body did not fit. */
  reasons: Reason[];
  pYes?: number;
  /**
   * Other symbols whose lines this item already shows (a Python `import io, logging, os` line is the
   * signature of each module it imports): packed once, named here, their tokens not counted again.
   */
  alsoCovers?: string[];
}

/** One file of a context package, with its tier, the reasons that brought it and its items in source order. */
export interface PackageFile {
  path: string;
  tier: number;
  reasons: Reason[];
  pYes?: number;
  items: PackageItem[];
  /** Estimated tokens of the file's header as rendered. */
  headerTokens: number;
}

/** Something a package left out, and why (`over-budget` with what it needed). */
export interface DroppedItem {
  path: string;
  symbol?: string;
  role?: SymbolRole;
  detail: PackageItem['detail'];
  reasons: Reason[];
}

/** The context an execute model gets: files and symbols with their reasons, within a budget. */
export interface ContextPackage {
  taskId: string;
  task: string;
  budget: { tokens: number; used: number; safetyMargin: number };
  files: PackageFile[];
  /** Import edges among the included files. */
  edges: Array<{ from: string; to: string }>;
  dropped: DroppedItem[];
  /** Groups of related included files (the similarity stage's output), when it ran and found any. */
  groups?: string[][];
}

/** What a `retrieve` run returns: the package in figures. */
export interface RetrievalSummary {
  taskId: string;
  files: number;
  symbols: Record<SymbolRole, number>;
  tokensUsed: number;
  budget: number;
  dropped: number;
  /** Binary judgments made (model calls of scope and precision). */
  judgments: number;
  /** Task analysis: enriched by the task_analysis model, or deterministic only (and why). */
  analysis: { enrichment: 'ok' | 'skipped' | 'failed'; reason?: string };
  /** Preflight's info lines (e.g. enrichment not found: tier 4 skipped). */
  info?: string[];
  /** The stages in the order they ran (skipped: routing chose not to run it), with what each left. */
  stages?: Array<{ name: string; files: number; decisions: number; ms: number; skipped?: boolean }>;
  /** The server's exact token counts over every judgment of the run. */
  usage?: { calls: number; promptTokens: number; completionTokens: number; failed: number };
  /** The stage list and the budget config the run used. */
  config?: { stages: string[]; contextWindow?: number; reservedTokens?: number; safetyMargin: number; concurrency: number };
}

/** The retrieve run's stage names live in stages.ts, with the pipeline's other stage lists. */
export { DEFAULT_RETRIEVAL_STAGES, RETRIEVAL_STAGE_NAMES, type RetrievalStageName };

/** How a judge's answer was read (`next-token`: from the next-token distribution, nothing generated; `default-deny`: neither yes nor no, so no). */
export type JudgmentReading = 'exact' | 'lenient' | 'json' | 'next-token' | 'default-deny';

/** What one judgment was about, as the stage that asked knew it (not read back from the prompt). */
export interface JudgedItem {
  /** A file (scope, precision_file), a symbol (precision passes), a group of symbols past precision's caps, a pair of files (similarity). */
  subjectKind: 'file' | 'symbol' | 'group' | 'pair';
  /** The file; the first file of a pair. */
  path: string;
  /** A symbol's qualified name. */
  symbol?: string;
  /** As the run's decisions name it: a path, `path:qualified.name`, `path (n symbols)`, `a|b`. */
  subject: string;
}

/**
 * One binary judgment of a retrieve run, pushed by the judge as it ends (event retrieval/judgment),
 * with the identity of the item judged; for the live list: the run's decisions (the result's
 * `verdicts`) are the record.
 */
export interface RetrievalJudgment extends Omit<JudgedItem, 'subject'> {
  runId: string;
  taskId: string;
  /** The call's stage: one of JUDGE_STAGES (stages.ts). */
  stage: string;
  /** What was judged: the item's `subject`. */
  item: string;
  verdict: 'yes' | 'no';
  read: JudgmentReading;
  pYes?: number;
  /** The model call (Logs: the repository's log, model_calls.id). */
  callId?: number;
  /** Judgments of this stage so far, this one included. */
  done: number;
}

/** One decision of a retrieve run about a file or symbol, with the judgment and model call behind it when there was one. */
export interface RetrievalVerdict {
  /** scope, precision_pass1..3, precision, similarity. */
  stage: string;
  subjectKind: 'file' | 'symbol' | 'pair' | 'stage' | 'run';
  /** A path, or `path:qualified.name` for a symbol. */
  subject: string;
  /** included, excluded, relevant, primary, supporting, type_context, over-cap, … */
  decision: string;
  verdict?: 'yes' | 'no';
  read?: JudgmentReading;
  pYes?: number;
  callId?: number;
}

/** A request's fields with the budget in its one shape, when one was given. */
const withBudget = <T extends object>(rest: T, budget: BudgetInput | undefined): T & { budget?: BudgetInput } => (budget ? { ...rest, budget } : rest);

/** Requests of retrieval. */
export const retrievalRequests = {
  'retrieval/run': request<RunStarted<'retrieve'> & { taskId: string }>()(
    'Build the context package for a task: starts a `retrieve` run (task analysis → scope → precision → package) that emits retrieval/package',
    () => z
      .object({
        repoId: z.string().min(1),
        task: z.string().trim().min(1, { error: 'the task must not be empty: describe what should change' }).max(8000, { error: 'the task must be at most 8000 characters' }),
        /**
         * The token budget (the one shape of every request): `{contextWindow, reservedTokens}` (either
         * left out comes from the config's [budget]) or `{tokens}`; default the config's [budget].
         * A number here is the old shape of `{tokens}`, still accepted for one release.
         */
        budget: z.union([budgetSchema, z.number().int().positive({ error: 'the budget must be a whole number of tokens above 0' })]).optional(),
        taskId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/).optional(),
        /** The explicit stage list, in pipeline order (routing, scope, similarity, precision, refilter); default scope, precision. */
        stages: retrievalStageListSchema.optional(),
        /** Old shape of `budget: {contextWindow, reservedTokens}`, accepted for one release. Not with `budget`. */
        budgetConfig: z.object({ contextWindow: z.number().int().positive(), reservedTokens: z.number().int().min(0) }).strict().optional(),
        /** Old shape of `budget: {contextWindow?, reservedTokens?}` (two fields), accepted for one release. Not with `budget` or `budgetConfig`. */
        contextWindow: z.number().int().positive().optional(),
        reservedTokens: z.number().int().min(0).optional(),
        /** The safety margin on the token estimates for this run (0.1 counts them 10% high); default [retrieval] safety_margin. */
        safetyMargin: z.number().min(0, { error: 'the safety margin must be from 0 to 1' }).max(1, { error: 'the safety margin must be from 0 to 1' }).optional(),
        /** Files given with the task (a plan's): scope tier 0, never judged. */
        planFiles: z.array(z.string().min(1).max(1000)).max(200).optional(),
        /** The model of every retrieval stage for this run, instead of the config's. */
        model: modelNameSchema.optional(),
        /** The model server for this run, instead of the config's. */
        baseUrl: z.string().regex(/^https?:\/\/[^\s"'<>\\`]+$/i, { error: 'baseUrl must be an http:// or https:// address' }).optional(),
      })
      .refine((i) => [i.budget, i.budgetConfig, i.contextWindow ?? i.reservedTokens].filter((b) => b !== undefined).length <= 1, {
        error: 'give the budget once: budget (budgetConfig and contextWindow/reservedTokens are its old shapes)',
        path: ['budget'],
      })
      // The old shapes become the one shape, checked by the same schema (reserved below the window).
      .transform(({ budget, budgetConfig, contextWindow, reservedTokens, ...rest }, ctx) => {
        const old = budgetConfig ?? ((contextWindow ?? reservedTokens) !== undefined ? { contextWindow, reservedTokens } : undefined);
        const given = typeof budget === 'number' ? { tokens: budget } : (budget ?? old);
        const parsed = given === undefined ? undefined : budgetSchema.safeParse(given);
        if (parsed && !parsed.success) {
          for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: ['budget', ...issue.path] as PropertyKey[] });
          return z.NEVER;
        }
        return withBudget(rest, parsed?.data);
      }),
    { repoId: 'repo-1', task: 'Fix the tokenizer dropping newlines', budget: { contextWindow: 16384, reservedTokens: 2048 } },
  ),
} as const;

/** What a retrieve run produces (its `RunResult`): the context package with its summary, markdown, stages and every decision. */
export interface RetrievalResult {
  taskId: string;
  package: ContextPackage;
  summary: RetrievalSummary;
  markdown: string;
  /** The stages that ran. */
  stages?: RetrievalStageName[];
  /** Every decision of the run with its model call, so each verdict can be opened in Logs. */
  verdicts?: RetrievalVerdict[];
}

/** Events of a retrieve run. */
export const retrievalEvents = {
  'retrieval/package': event<RetrievalResult & { runId: string; repoId: string } & Sequenced>()(
    "The finished context package of a retrieve run. Deprecated, kept for one release: read the run's result (`RunResult<'retrieve'>`, run/finished or run/attach)",
  ),
  'retrieval/judgment': event<RetrievalJudgment & Sequenced>()('One binary judgment of a retrieve run, as its model call ends'),
} as const;
