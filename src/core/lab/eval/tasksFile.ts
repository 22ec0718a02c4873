import { z } from 'zod';
import { AppError } from '../../../shared/contract';
import type { EvalTask } from '../../../shared/contract/eval';
import { readUserFile } from '../../platform/fs/userFile';

const TaskLine = z
  .object({
    id: z.union([z.string().min(1), z.number()]).transform(String),
    task: z.string().trim().min(1, 'task must be a non-empty text'),
    parent: z.string().regex(/^[0-9a-f]{4,40}$|^[\w./~^-]+$/i, 'parent must be a commit sha or revision'),
    gold: z.array(z.string().min(1)).min(1, 'gold must name at least one file'),
    // The commit that resolved the task (an issue's fix): with it the run computes the task's gold
    // functions at the parent (functionLevel.ts), as for mined tasks.
    commit: z.string().regex(/^[0-9a-f]{4,40}$/i, 'commit must be a commit sha').optional(),
    // When every task has one, tasks run oldest first, so the index moves forward in time.
    date: z.string().datetime({ offset: true, message: 'date must be an ISO 8601 date-time' }).optional(),
  })
  // Other fields (a shared task file's repo, created_at, patch...) are dropped, not an error, so
  // task files of other tools are read as they are.
  .strip();

/**
 * Read evaluation tasks from a JSON-lines file: one `{id, task, parent, gold: [paths]}` per line,
 * optionally with the `commit` that resolved the task (its gold functions are then scored) and its
 * `date` (other fields ignored), blank lines and lines starting with `//` ignored. Every bad line is reported (line number and
 * problem) in one VALIDATION error, so a file is fixed in one pass; nothing runs on a bad file.
 * The file must be a regular file of at most 64 MiB (see readUserFile).
 */
export function readTasksFile(file: string): EvalTask[] {
  // A user-named path: a FIFO or a device is refused, not read (it would block or never end).
  const text = readUserFile(file, { what: 'tasks file', maxBytes: 64 * 1024 * 1024, fix: 'give a JSON-lines file of tasks' }).toString('utf8');
  return parseTasks(text, file);
}

/** Parse the JSON-lines text of a tasks file (see readTasksFile). */
export function parseTasks(text: string, label = 'tasks'): EvalTask[] {
  const tasks: EvalTask[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  text.split(/\r?\n/).forEach((line, index) => {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('//')) return;
    const where = `${label}:${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (error) {
      problems.push(`${where}: not JSON (${(error as Error).message})`);
      return;
    }
    const parsed = TaskLine.safeParse(value);
    if (!parsed.success) {
      problems.push(`${where}: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'line'}: ${i.message}`).join('; ')}`);
      return;
    }
    if (seen.has(parsed.data.id)) problems.push(`${where}: duplicate id ${parsed.data.id}`);
    seen.add(parsed.data.id);
    const { commit, date, ...task } = parsed.data;
    tasks.push({ ...task, gold: task.gold.map((g) => g.replace(/^\.\//, '')), ...(commit ? { commit } : {}), ...(date ? { date } : {}) });
  });
  if (problems.length > 0) {
    throw new AppError('VALIDATION', `${problems.length} bad line(s) in ${label}; each line must be {"id", "task", "parent", "gold": [paths]}:\n${problems.join('\n')}`, {
      details: problems,
    });
  }
  if (tasks.length === 0) throw new AppError('VALIDATION', `${label} holds no tasks; write one JSON object per line.`);
  return tasks;
}
