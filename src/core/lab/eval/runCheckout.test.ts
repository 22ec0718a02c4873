import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestRepo, type TestRepo } from '../../testing/gitRepo';
import { runEval } from './run';

let repo: TestRepo | undefined;
afterEach(() => {
  repo?.cleanup();
  repo = undefined;
});

describe('an evaluation run with a task whose checkout fails', () => {
  it('reports that task as failed and runs the others', async () => {
    repo = createTestRepo({ prefix: 'cra-evalcheckout-' });
    repo.writeFiles({ 'src/app/server.py': 'def parse_request(raw):\n    return raw\n', 'src/app/cookies.py': 'def parse_cookie(header):\n    return header\n' });
    const first = repo.commit('Initial import');
    repo.write('src/app/payload.py', 'PAYLOAD = "a blob this clone has lost"\n');
    const broken = repo.commit('Add a payload');
    repo.remove('src/app/payload.py');
    repo.write('src/app/server.py', 'def parse_request(raw):\n    return raw.strip()\n');
    const last = repo.commit('Strip requests');
    // The payload's blob goes missing, as in a partial clone: its commit still resolves, its checkout fails.
    const blob = repo.git('rev-parse', `${broken}:src/app/payload.py`).trim();
    rmSync(join(repo.root, '.git', 'objects', blob.slice(0, 2), blob.slice(2)));
    const workDir = join(repo.root, '..', 'eval-work');
    const report = await runEval({
      repoPath: repo.root,
      tasks: [
        { id: 'a', task: 'parse the request', parent: first, gold: ['src/app/server.py'] },
        { id: 'b', task: 'payload text', parent: broken, gold: ['src/app/payload.py'] },
        { id: 'c', task: 'parse cookie header', parent: last, gold: ['src/app/cookies.py'] },
      ],
      source: { kind: 'file', file: 'tasks.jsonl' },
      ks: [1, 5],
      workDir,
      worktreesDir: join(repo.root, '..', 'worktrees'),
    });
    expect(report.tasks.map((t) => t.id)).toEqual(['a', 'b', 'c']);
    expect(report.tasks[1]!.error).toMatch(new RegExp(`^checkout of ${broken.slice(0, 12)} failed: .+`));
    expect(report.tasks[0]!.error).toBeUndefined();
    expect(report.tasks[2]!.error).toBeUndefined();
    expect(report.tasks[0]!.results['bm25-standard']!.ranked[0]).toBe('src/app/server.py');
    expect(report.tasks[2]!.results['bm25-standard']!.ranked[0]).toBe('src/app/cookies.py');
    expect(report.notes).toContain('1 task(s) could not be run; see their errors.');
    expect(existsSync(workDir)).toBe(false);
  });
});
