import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../../shared/contract';
import type { EvalReport, EvalReportSummary } from '../../../shared/contract/eval';
import { reportsDir } from '../../platform/layout';

const ID = /^[\w.-]{1,100}$/;

/** Write a report atomically (temporary file + rename) and return its path. */
export function saveReport(dataDir: string, report: EvalReport): string {
  if (!ID.test(report.id)) throw new Error(`Bad report id ${report.id}`);
  const dir = reportsDir(dataDir);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${report.id}.json`);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(report, null, 2)}\n`);
  renameSync(temp, file);
  return file;
}

/** One stored report; NOT_FOUND when there is none with this id, CONFIG_INVALID when unreadable. */
export function loadReport(dataDir: string, id: string): EvalReport {
  if (!ID.test(id)) throw new AppError('VALIDATION', `"${id}" is not a report id.`);
  const file = join(reportsDir(dataDir), `${id}.json`);
  if (!existsSync(file)) throw new AppError('NOT_FOUND', `No evaluation report ${id}; list them with eval/list or \`cra eval\`.`);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as EvalReport;
  } catch (error) {
    throw new AppError('CONFIG_INVALID', `The report ${file} is not valid JSON; delete it.`, { cause: error });
  }
}

/** Every readable report, newest first, as list lines. Unreadable files are skipped. */
export function listReports(dataDir: string): EvalReportSummary[] {
  const dir = reportsDir(dataDir);
  if (!existsSync(dir)) return [];
  const out: EvalReportSummary[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.json')) continue;
    try {
      const report = JSON.parse(readFileSync(join(dir, name), 'utf8')) as EvalReport;
      out.push({ id: report.id, createdAt: report.createdAt, repoPath: report.repoPath, taskCount: report.tasks.length, ks: report.ks, summary: report.summary });
    } catch {
      // A half-written or foreign file is not a report; the list shows the readable ones.
    }
  }
  return out.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}
