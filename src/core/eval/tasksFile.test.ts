import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../shared/contract';
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

  it('keeps the fixing commit when a line gives one, for function-level figures, and refuses one that is not a sha', () => {
    const line = { id: 'x-2', task: 'Fix the lexer', parent: 'abc1234', commit: 'def5678', gold: ['src/l.py'], issue: 12 };
    expect(parseTasks(JSON.stringify(line))).toEqual([{ id: 'x-2', task: 'Fix the lexer', parent: 'abc1234', commit: 'def5678', gold: ['src/l.py'] }]);
    expect(() => parseTasks(JSON.stringify({ ...line, commit: 'HEAD; rm' }))).toThrow(/commit must be a commit sha/);
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
