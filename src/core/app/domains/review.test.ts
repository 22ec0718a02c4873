import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/contract';
import { CONFIG_PY, createChatRepo } from '../../testing/chatRepo';
import type { TestRepo } from '../../testing/gitRepo';
import { createTempCore } from '../../testing/tempCore';
import { createReviewHandlers, type ReviewableRun } from './review';

const temp = createTempCore();
let repo: TestRepo;
let repoId: string;
let run: ReviewableRun;

beforeAll(async () => {
  repo = createChatRepo();
  const added = await temp.core.handlers['repos/add']({ path: repo.root });
  await temp.core.runs.wait(added.runId);
  repoId = added.repo.id;
  // A run's change, made the way a run's worktree makes it, then taken out of the user's tree.
  const base = repo.git('rev-parse', 'HEAD').trim();
  repo.write('config.py', CONFIG_PY.replace('import json', 'import json\nimport os').replace('        return json.load(handle)', '        data = json.load(handle)\n        return data') + '# settings are JSON files\n');
  repo.write('mailer.py', 'def send_mail(to, body):\n    """Deliver a message over SMTP (port 25)."""\n    return to, body\n');
  repo.git('add', '-A');
  const diff = repo.git('diff', '--cached', '--no-renames');
  repo.git('reset', '-q', '--hard');
  run = { baseCommit: base, diff, steps: [{ id: 'p1/s1', label: 'Part 1 · step 1', diff }] };
}, 60_000);
afterAll(async () => {
  repo.cleanup();
  await temp.cleanup();
});

const handlers = () =>
  createReviewHandlers(temp.core.context, async (_repo, runId) => {
    if (runId !== 'run-1') throw new AppError('NOT_FOUND', `No solve run ${runId}.`);
    return run;
  });

describe('review domain', () => {
  it('shows the change per file and hunk, applies only the accepted hunks, refuses over the user\'s edits, and undoes', async () => {
    const review = handlers();
    const view = await review['review/get']({ repoId, runId: 'run-1' });
    expect(view.files.map((f) => [f.path, f.status, f.hunks.length])).toEqual([
      ['config.py', 'modified', 1],
      ['mailer.py', 'modified', 1],
    ]);
    expect(view.files[1]!.hunks[0]).toMatchObject({ added: 1, removed: 1 });
    expect(view.files[1]!.hunks[0]!.diff).toMatch(/^diff --git a\/mailer\.py b\/mailer\.py\n--- a\/mailer\.py\n\+\+\+ b\/mailer\.py\n@@ -1,3 \+1,3 @@\n/);
    expect(view.steps).toHaveLength(1);
    expect(view.undo).toBeNull();
    expect(view.applied).toEqual([]);

    const mailHunk = view.files[1]!.hunks[0]!.id;
    expect(await review['review/apply']({ repoId, runId: 'run-1', accepted: [mailHunk] })).toEqual({ written: ['mailer.py'], hunks: 1 });
    expect(repo.git('status', '--porcelain')).toBe(' M mailer.py\n');
    expect(readFileSync(join(repo.root, 'mailer.py'), 'utf8')).toContain('(port 25)');
    const afterApply = await review['review/get']({ repoId, runId: 'run-1' });
    expect(afterApply.undo).toMatchObject({ runId: 'run-1', files: ['mailer.py'] });
    // What the working tree now holds of the run: the mailer hunk, not the config one the user left out.
    expect(afterApply.applied).toEqual([mailHunk]);
    // Applying it again writes nothing (it is there already), and is not taken for the user's edit.
    expect(await review['review/apply']({ repoId, runId: 'run-1', accepted: [mailHunk] })).toEqual({ written: [], hunks: 0 });

    // The user edits config.py; applying its hunk now would overwrite that: refused, nothing written.
    repo.write('config.py', `${CONFIG_PY}# my own note\n`);
    const configHunk = view.files[0]!.hunks[0]!.id;
    await expect(review['review/apply']({ repoId, runId: 'run-1', accepted: [configHunk] })).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(readFileSync(join(repo.root, 'config.py'), 'utf8')).toContain('# my own note');

    expect(await review['review/undo']({ repoId })).toEqual({ restored: ['mailer.py'], runId: 'run-1' });
    expect(repo.git('status', '--porcelain')).toBe(' M config.py\n');
    expect((await review['review/get']({ repoId, runId: 'run-1' })).applied).toEqual([]);
    await expect(review['review/get']({ repoId, runId: 'nope' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
