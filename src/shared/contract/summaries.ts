import { z } from 'zod';
import { request } from './define';
import type { RunStarted } from './runInfo';

/** The summary tree of a repository as the app shows it. */
export interface SummaryStatus {
  repoId: string;
  /** Summaries per level (level 1: clusters of files); empty before the first build. */
  levels: Array<{ level: number; summaries: number }>;
  embedderId: string | null;
  builtAt: string | null;
  /** Whether a build starts by itself after each embedding run (a model is assigned to the summarize stage). */
  automatic: boolean;
}

/** Requests of the summaries domain (hierarchical summaries, RAPTOR). */
export const summariesRequests = {
  'summaries/build': request<RunStarted<'summarize'>>()(
    'Build or update the summary tree of a repository (a summarize run: clusters of files summarised level by level; unchanged clusters keep their summaries)',
    () => z.object({ repoId: z.string().min(1) }),
    { repoId: 'repo-1' },
  ),
  'summaries/status': request<SummaryStatus>()('The summary tree of a repository: summaries per level, when built, with which embedder', () => z.object({ repoId: z.string().min(1) }), { repoId: 'repo-1' }),
} as const;
