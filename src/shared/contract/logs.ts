import { z } from 'zod';
import { request } from './define';
import type { RunRecord } from './runs';

/** One model call as the Logs table lists it. */
export interface ModelCallSummary {
  id: number;
  createdAt: string;
  runId: string | null;
  stage: string | null;
  role: string | null;
  provider: string;
  model: string;
  promptTokens: number | null;
  completionTokens: number | null;
  latencyMs: number | null;
  errorCode: string | null;
  /** The first words of the response, or of the error. */
  preview: string;
  /** A yes/no judgment's P(yes), from the token probabilities logged with it. */
  pYes?: number;
}

/** One model call, whole. */
export interface ModelCallDetail extends ModelCallSummary {
  baseUrl: string | null;
  system: string | null;
  prompt: string;
  response: string | null;
  params: Record<string, unknown>;
  error: string | null;
}

const repoId = z.string().regex(/^[a-z0-9][a-z0-9-]{0,80}$/, 'a repository id').optional();

/** Audit log requests. */
export const logsRequests = {
  'logs/list': request<{ total: number; calls: ModelCallSummary[]; run?: RunRecord }>()(
    'Model calls, newest first, filtered by run, stage, model or errors only; paged. Filtered by a run recorded in this log, `run` is that run.',
    () => z
      .object({
        repoId,
        runId: z.string().max(200).optional(),
        stage: z.string().max(100).optional(),
        model: z.string().max(200).optional(),
        errorsOnly: z.boolean().default(false),
        limit: z.number().int().min(1).max(500).default(50),
        offset: z.number().int().min(0).default(0),
      })
      .strict(),
    { errorsOnly: false, limit: 50, offset: 0 },
  ),
  'logs/get': request<ModelCallDetail>()('One model call, whole: system, prompt, response, parameters.', () => z.object({ repoId, id: z.number().int().positive() }).strict(), { id: 1 }),
} as const;
