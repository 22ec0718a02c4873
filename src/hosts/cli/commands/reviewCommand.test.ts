import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../../shared/contract';
import { CONFIG_PY, createChatRepo } from '../../../core/testing/chatRepo';
import type { TestRepo } from '../../../core/testing/gitRepo';
import { isJudgment, OllamaTestServer } from '../../../core/testing/ollamaTestServer';
import { createTempCore } from '../../../core/testing/tempCore';
import { runCra } from '../testing/cra';
import { formatReview } from './reviewCommand';

const temp = createTempCore();
let server: OllamaTestServer;
let repo: TestRepo;
let runId: string;
const MAILER = 'def send_mail(to, body):\n    """Deliver a message over SMTP."""\n    return to, body\n';

const plan: Plan = {
  task_summary: 'Say the settings format and the mail port',
  affected_files: [
    { path: 'config.py', role: 'modify', changes: [{ symbol: 'load_config', action: 'modify', description: 'Say the format', depends_on: [], depended_by: [] }] },
    { path: 'mailer.py', role: 'modify', changes: [{ symbol: 'send_mail', action: 'modify', description: 'Say the port', depends_on: [], depended_by: [] }] },
  ],
  execution_order: ['config.py', 'mailer.py'],
  rationale: 'Documentation only.',
};
const block = (path: string, search: string, replace: string) => `${path}\n\`\`\`python\n<<<<<<< SEARCH\n${search}\n=======\n${replace}\n>>>>>>> REPLACE\n\`\`\`\n`;

beforeAll(async () => {
  server = await OllamaTestServer.start();
  server.install('qwen3:0.6b');
  writeFileSync(join(temp.dataDir, 'config.toml'), `[models]\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\nbase_url = "${server.url}"\n`);
  server.script.respond = (prompt) => {
    if (isJudgment(prompt)) return { json: { answer: 'yes' } };
    if (prompt.startsWith('Task:')) return { json: { intent: 'docs', files: ['config.py'], symbols: [], concepts: [] } };
    if (/^## Pass: implement/.test(prompt)) {
      return { text: block('config.py', '    """Load the settings file at path and return a dict."""', '    """Load the JSON settings file at path and return a dict."""') + block('mailer.py', '    """Deliver a message over SMTP."""', '    """Deliver a message over SMTP (port 25)."""') };
    }
    return undefined;
  };
  repo = createChatRepo();
  const added = await temp.core.handlers['repos/add']({ path: repo.root });
  await temp.core.runs.wait(added.runId);
  const started = await temp.core.handlers['plans/solve']({ repoId: added.repo.id, task: 'Say the settings format and the mail port', plan, includeUncommitted: false });
  const outcome = await temp.core.runs.wait(started.runId, 'solve');
  expect(outcome.status).toBe('complete');
  runId = started.solveRunId;
}, 120_000);
afterAll(async () => {
  await server.close();
  repo.cleanup();
  await temp.cleanup();
});

const cra = (...args: string[]) => runCra(temp.dataDir, [...args, '--repo', repo.root]);

describe('cra review', () => {
  it('lists the hunks, applies only what is named, refuses over the user\'s edits, and undoes', async () => {
    const listed = await cra('review', runId, '--json');
    expect(listed.stderr).toBe('');
    const view = JSON.parse(listed.stdout) as { files: Array<{ path: string; hunks: Array<{ id: string }> }> };
    expect(view.files.map((f) => f.path)).toEqual(['config.py', 'mailer.py']);
    const text = await cra('review', runId, '--diff');
    expect(text.stdout).toContain('mailer.py (modified)');
    expect(text.stdout).toContain('+    """Deliver a message over SMTP (port 25)."""');
    expect(repo.git('status', '--porcelain')).toBe('');

    const applied = await cra('review', runId, '--apply', '--file', 'mailer.py');
    expect(applied.stdout).toBe('Applied 1 hunk to mailer.py. Undo with: cra review --undo\n');
    expect(readFileSync(join(repo.root, 'mailer.py'), 'utf8')).toBe(MAILER.replace('SMTP.', 'SMTP (port 25).'));
    expect(repo.git('status', '--porcelain')).toBe(' M mailer.py\n');

    writeFileSync(join(repo.root, 'config.py'), `${CONFIG_PY}# mine\n`);
    const refused = await cra('review', runId, '--apply', '--hunk', view.files[0]!.hunks[0]!.id);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/^cra: error: config\.py changed in the working tree since the run started; nothing was applied/);
    expect(readFileSync(join(repo.root, 'config.py'), 'utf8')).toBe(`${CONFIG_PY}# mine\n`);

    const undone = await cra('review', '--undo');
    expect(undone.stdout).toBe(`Undone the apply of ${runId}: mailer.py restored.\n`);
    expect(readFileSync(join(repo.root, 'mailer.py'), 'utf8')).toBe(MAILER);
  });

  it('says what is wrong with the arguments', async () => {
    expect((await cra('review', runId, '--file', 'mailer.py')).stderr).toContain('--file and --hunk choose what --apply writes; add --apply.');
    expect((await cra('review')).stderr).toContain('Name the run to review (cra review RUN), or use --undo.');
    expect((await cra('review', runId, '--apply', '--file', 'nope.py')).stderr).toContain('The run did not change nope.py; its files: config.py, mailer.py.');
    expect((await cra('review', 'r-none')).stderr).toMatch(/No solve run r-none/);
  });
});

describe('cra review output', () => {
  it('shows a binary file with its sizes and its one whole-file hunk', () => {
    const text = formatReview(
      {
        runId: 'r1',
        baseCommit: 'a'.repeat(40),
        files: [
          { path: 'logo.png', status: 'modified', diff: 'diff --git a/logo.png b/logo.png\nBinary files a/logo.png and b/logo.png differ\n', binary: { before: 1200, after: 1536 }, hunks: [{ id: 'logo.png#0:0123456789', oldStart: 1, oldLines: 0, newStart: 1, newLines: 0, diff: '', added: 0, removed: 0 }] },
          { path: 'new.bin', status: 'added', diff: '', binary: { before: null, after: 5 }, hunks: [{ id: 'new.bin#0:abcdefabcd', oldStart: 1, oldLines: 0, newStart: 1, newLines: 0, diff: '', added: 0, removed: 0 }] },
        ],
        steps: [],
        applied: [],
        undo: null,
      },
      true,
    );
    expect(text).toContain('logo.png (modified, binary: 1,200 bytes → 1,536 bytes)\n  hunk logo.png#0:0123456789  whole file\n');
    expect(text).toContain('new.bin (added, binary: none → 5 bytes)\n  hunk new.bin#0:abcdefabcd  whole file\n');
  });
});
