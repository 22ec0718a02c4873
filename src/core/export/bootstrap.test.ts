import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureRepo } from '../eval/fixtureRepo';
import { runGitSync } from '../git';
import { CHAT_USER, fillTemplate } from '../retrieval/judgePrompts';
import { SCOPE_QUESTION } from '../retrieval/stages/scope';
import { bootstrapDataset, intersects } from './bootstrap';
import type { ChatExample, DatasetManifest } from './dataset';

let base: string;
let repo: string;
const lines = (dir: string, stage: string): ChatExample[] =>
  readFileSync(join(dir, `${stage}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as ChatExample);
const manifest = (dir: string) => JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as DatasetManifest;
const shaOf = (subject: string) => runGitSync(['log', '--format=%H', `--grep=^${subject}`, '-n', '1'], { cwd: repo }).trim();

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'cra-bootstrap-'));
  repo = buildFixtureRepo(join(base, 'repo'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('cra bootstrap on the fixture history', () => {
  it('labels the changed files yes and the other scope candidates no, changed symbols primary, and the diff as the execute target', async () => {
    const out = join(base, 'full');
    const summary = await bootstrapDataset({ repoPath: repo, dataDir: join(base, 'data'), out });
    // The eval's mining: 5 of the 14 commits qualify.
    expect(summary).toMatchObject({ mined: 5, added: 5, skipped: 0, considered: 14 });
    const length = shaOf('Handle a missing Content-Length header');
    const scope = lines(out, 'scope').filter((x) => x.meta.commit === length);
    // At its parent (the initial import) the candidates are the search seeds and their importers.
    expect(scope.map((x) => [x.meta.subject, x.meta.label])).toEqual([
      ['src/app/server.py', 'yes'],
      ['tests/test_server.py', 'no'],
      ['src/app/util.py', 'no'],
    ]);
    // The judge's own prompt: its system prompt with the scope question, the task, and the file as the judge sees it.
    const first = scope[0]!;
    expect(first.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
    expect(first.messages[0]?.content).toContain(SCOPE_QUESTION);
    expect(first.messages[1]?.content).toBe(fillTemplate(CHAT_USER, { query: 'Handle a missing Content-Length header when parsing a request body', document: first.messages[1]!.content.split('Item:\n')[1]!.split('\n\nAnswer')[0]! }));
    expect(first.messages[1]?.content).toContain('path: src/app/server.py');
    expect(first.messages[2]?.content).toBe('yes');

    // Two changed files; the diff touches verify_session_token's body and appends after sign (not inside it).
    const auth = shaOf('Reject expired session tokens');
    expect(lines(out, 'scope').filter((x) => x.meta.commit === auth && x.meta.label === 'yes').map((x) => x.meta.subject)).toEqual(['src/app/auth.py', 'src/app/config.py']);
    expect(lines(out, 'precision').filter((x) => x.meta.commit === auth).map((x) => [x.meta.subject, x.meta.label])).toEqual([
      ['src/app/auth.py:verify_session_token', 'yes'],
      ['src/app/auth.py:sign', 'no'],
      ['src/app/config.py:SECRET', 'no'],
      ['src/app/config.py:DEBUG', 'no'],
    ]);
    // Negatives of a later commit come from the candidate tiers (imports, co-change), never from the changed files.
    const cookie = lines(out, 'scope').filter((x) => x.meta.commit === shaOf('Fix cookie parsing'));
    expect(cookie.filter((x) => x.meta.label === 'no').every((x) => x.meta.tier !== undefined && x.meta.subject !== 'src/app/util.py')).toBe(true);

    const execute = lines(out, 'execute').find((x) => x.meta.commit === length)!;
    expect(execute.messages[2]?.content).toBe(runGitSync(['diff', '--no-color', `${length}^`, length, '--', 'src/app/server.py'], { cwd: repo }));
    expect(execute.messages[1]?.content).toContain('int(headers["Content-Length"])');

    const m = manifest(out);
    expect(m).toMatchObject({ source: 'synthetic', family: 'chat', counts: { scope: { yes: 7, no: 9 }, precision: { yes: 4, no: 10 }, execute: 5 } });
    expect(m.commits.map((c) => c.sha)).toHaveLength(5);
    for (const stage of ['scope', 'precision', 'execute'] as const) expect(lines(out, stage)).toHaveLength(m.files[stage].lines);
    for (const x of [...lines(out, 'scope'), ...lines(out, 'precision'), ...lines(out, 'execute')]) {
      expect(x.messages.map((msg) => msg.role)).toEqual(['system', 'user', 'assistant']);
      expect(x.messages.every((msg) => typeof msg.content === 'string' && msg.content.length > 0)).toBe(true);
      expect(x.meta.source).toBe('synthetic');
    }
  }, 60_000);

  it('resumes after an interruption: finished commits kept, a half-written commit cut, no duplicates', async () => {
    const out = join(base, 'resumed');
    const controller = new AbortController();
    await expect(
      bootstrapDataset({ repoPath: repo, dataDir: join(base, 'data'), out, signal: controller.signal, onProgress: (p) => p.done === 2 && controller.abort() }),
    ).rejects.toThrow();
    expect(manifest(out).commits).toHaveLength(2);
    // A crash between appending a commit's lines and writing the manifest leaves lines the manifest does not count.
    appendFileSync(join(out, 'scope.jsonl'), '{"messages":[],"meta":{"commit":"half"}}\n');
    const summary = await bootstrapDataset({ repoPath: repo, dataDir: join(base, 'data'), out });
    expect(summary).toMatchObject({ mined: 5, added: 3, skipped: 2 });
    const full = join(base, 'full');
    for (const stage of ['scope', 'precision', 'execute'] as const) {
      const keys = lines(out, stage).map((x) => `${x.meta.commit}|${x.meta.subject}`);
      expect(new Set(keys).size).toBe(keys.length);
      expect(readFileSync(join(out, `${stage}.jsonl`), 'utf8')).toBe(readFileSync(join(full, `${stage}.jsonl`), 'utf8'));
    }
    expect(manifest(out).counts).toEqual(manifest(full).counts);
    // Nothing left to do: a third run adds nothing.
    expect(await bootstrapDataset({ repoPath: repo, dataDir: join(base, 'data'), out })).toMatchObject({ added: 0, skipped: 5 });
  }, 60_000);

  it('refuses a folder that holds another repository’s dataset', async () => {
    const other = buildFixtureRepo(join(base, 'other'));
    await expect(bootstrapDataset({ repoPath: other, dataDir: join(base, 'data'), out: join(base, 'full'), commits: 1 })).rejects.toThrow(/holds a dataset of .*pick another --out folder/);
  }, 60_000);
});

describe('hunk and symbol intersection', () => {
  it('counts replaced lines inside a symbol and insertions strictly inside its body', () => {
    const fn = { startLine: 3, endLine: 7 };
    expect(intersects({ start: 7, end: 8 }, fn)).toBe(true);
    expect(intersects({ start: 8, end: 9 }, fn)).toBe(false);
    expect(intersects({ start: 1, end: 2 }, fn)).toBe(false);
    // Inserted after line 5 (inside), after line 7 (the symbol's last line: appended after it), after line 2 (before it).
    expect(intersects({ start: 6, end: 5 }, fn)).toBe(true);
    expect(intersects({ start: 8, end: 7 }, fn)).toBe(false);
    expect(intersects({ start: 3, end: 2 }, fn)).toBe(false);
  });
});
