import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/contract';
import { parseTasks, readTasksFile } from './tasksFile';

describe('the tasks file', () => {
  it('reads JSON lines, skipping blank and // lines', () => {
    const tasks = parseTasks(
      ['// a comment', '{"id": 1, "task": "Fix the parser", "parent": "abc1234", "gold": ["./src/p.py"]}', '', '{"id": "b", "task": "x y", "parent": "HEAD~2", "gold": ["a.ts", "b.ts"]}'].join('\n'),
    );
    expect(tasks).toEqual([
      { id: '1', task: 'Fix the parser', parent: 'abc1234', gold: ['src/p.py'] },
      { id: 'b', task: 'x y', parent: 'HEAD~2', gold: ['a.ts', 'b.ts'] },
    ]);
  });

  it('ignores fields it does not use, so task files of other tools are read as they are', () => {
    const line = { id: 'x-1', task: 'Fix the parser', parent: 'abc1234', gold: ['src/p.py'], repo: 'org/x', created_at: '2024-01-01', patch: 'diff --git ...', extra: { nested: [1] } };
    expect(parseTasks(JSON.stringify(line))).toEqual([{ id: 'x-1', task: 'Fix the parser', parent: 'abc1234', gold: ['src/p.py'] }]);
  });

  it('keeps a task\'s fix commit and date, so its gold functions are scored, and names a bad one', () => {
    const line = { id: 'issue-7', task: 'Crash on empty input', parent: 'abc1234', gold: ['src/p.py'], commit: 'def5678', date: '2024-01-02T03:04:05+01:00', url: 'https://example.org/issues/7' };
    expect(parseTasks(JSON.stringify(line))).toEqual([{ id: 'issue-7', task: 'Crash on empty input', parent: 'abc1234', gold: ['src/p.py'], commit: 'def5678', date: '2024-01-02T03:04:05+01:00' }]);
    expect(() => parseTasks(JSON.stringify({ ...line, commit: 'HEAD~1' }), 'issues.json')).toThrow(/issues\.json:1: commit: commit must be a commit sha/);
    expect(() => parseTasks(JSON.stringify({ ...line, date: 'yesterday' }), 'issues.json')).toThrow(/issues\.json:1: date: date must be an ISO 8601 date-time/);
  });

  it('reports every bad line with its number and problem', () => {
    const text = ['{"id": 1, "task": "ok", "parent": "abc1234", "gold": ["a.py"]}', '{not json', '{"id": 2, "task": "", "parent": "abc", "gold": []}', '{"id": 1, "task": "dup", "parent": "abc1234", "gold": ["a"]}'].join('\n');
    let error: unknown;
    try {
      parseTasks(text, 'tasks.jsonl');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    const problems = (error as AppError).details as string[];
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/^tasks\.jsonl:2: not JSON/);
    expect(problems[1]).toMatch(/^tasks\.jsonl:3: .*task.*non-empty.*gold.*at least one/);
    expect(problems[2]).toBe('tasks.jsonl:4: duplicate id 1');
    expect((error as AppError).code).toBe('VALIDATION');
  });

  it('refuses a file without tasks', () => {
    expect(() => parseTasks('\n// nothing\n')).toThrow(/holds no tasks/);
  });

  it('refuses a FIFO and a device by path, unread', () => {
    expect(() => readTasksFile('/dev/zero')).toThrow(/The tasks file "\/dev\/zero" is a character device, not a file/);
    const dir = mkdtempSync(join(tmpdir(), 'cra-tasks-fifo-'));
    const fifo = join(dir, 'tasks.jsonl');
    execFileSync('mkfifo', [fifo]);
    // A writer waits on the FIFO: read, it would give a valid task.
    const writer = spawn('sh', ['-c', 'printf %s "$1" > "$2"', 'sh', '{"id": 1, "task": "t", "parent": "abc1234", "gold": ["a.py"]}', fifo], { stdio: 'ignore' });
    try {
      expect(() => readTasksFile(fifo)).toThrow(/tasks\.jsonl" is a named pipe \(FIFO\), not a file/);
    } finally {
      writer.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
