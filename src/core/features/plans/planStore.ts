import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../../shared/contract';
import type { PlanArtifact, PlanSummary } from '../../../shared/contract/plans';
import { plansDir } from '../../platform/layout';

const ID = /^[A-Za-z0-9_-]{1,80}$/;

/** A new plan id: `p-<UTC time>-<random>`, so names sort by creation. */
export function newPlanId(now = new Date()): string {
  return `p-${now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '')}-${randomBytes(3).toString('hex')}`;
}

/** Write a plan atomically (temporary file, then rename: a reader never sees half a plan); returns the file. */
export function savePlan(dataDir: string, artifact: PlanArtifact): string {
  if (!ID.test(artifact.id)) throw new AppError('VALIDATION', `"${artifact.id}" is not a plan id (1–80 letters, digits, - or _).`);
  const dir = plansDir(dataDir, artifact.repoId);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${artifact.id}.json`);
  const temp = `${file}.${process.pid}.${randomBytes(3).toString('hex')}.tmp`;
  writeFileSync(temp, `${JSON.stringify(artifact, null, 2)}\n`);
  renameSync(temp, file);
  return file;
}

/** One saved plan; NOT_FOUND names the id when there is none. */
export function loadPlan(dataDir: string, repoId: string, planId: string): PlanArtifact {
  if (!ID.test(planId)) throw new AppError('VALIDATION', `"${planId}" is not a plan id (1–80 letters, digits, - or _).`);
  const file = join(plansDir(dataDir, repoId), `${planId}.json`);
  if (!existsSync(file)) throw new AppError('NOT_FOUND', `No plan ${planId} for this repository; \`cra plans list\` shows the saved ones.`);
  return JSON.parse(readFileSync(file, 'utf8')) as PlanArtifact;
}

/** The repository's saved plans, newest first. A file that does not read as a plan is skipped and named in `unreadable`. */
export function listPlans(dataDir: string, repoId: string): { plans: PlanSummary[]; unreadable: string[] } {
  const dir = plansDir(dataDir, repoId);
  if (!existsSync(dir)) return { plans: [], unreadable: [] };
  const plans: PlanSummary[] = [];
  const unreadable: string[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.json')) continue;
    try {
      const a = JSON.parse(readFileSync(join(dir, name), 'utf8')) as PlanArtifact;
      plans.push({ id: a.id, task: a.task, taskSummary: a.plan.task_summary, createdAt: a.createdAt, model: a.model, version: a.version, files: a.plan.affected_files.length });
    } catch {
      unreadable.push(name);
    }
  }
  plans.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
  return { plans, unreadable };
}
