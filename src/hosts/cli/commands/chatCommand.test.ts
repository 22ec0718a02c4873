import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { packageRoot } from '../../../core/platform/paths';
import { useCliModelRepo } from '../testing/modelRepo';
import { type CraOutput } from '../testing/cra';

const fx = useCliModelRepo({ prefix: 'cra-cli-chat-' });

/** Run cra asynchronously (the test server answers in this process, so spawnSync would block it). */
function cra(...args: string[]): Promise<CraOutput> {
  return fx.cra(args);
}

describe('cra chat', () => {
  it('prints the route and sources on stderr, streams the answer to stdout, flags an invented citation, and continues a conversation', async () => {
    fx.server.script.chat.push({ text: '[BM25:] load_config' });
    fx.server.script.chat.push({ chunks: ['<think>hmm</think>', 'Read by load_config ', '[config.py:4-7]', ' not [nope.py:1].'] });
    const first = await cra('chat', 'Where are the settings loaded?', '--repo', fx.repo.root);
    expect(first.status).toBe(0);
    expect(first.stdout).toBe('Read by load_config [config.py:4-7] not [nope.py:1].\n');
    expect(first.stderr).toMatch(/^Route: BM25 “load_config” · SEARCH · keyword\nSources: config\.py:\d+-\d+ /);
    expect(first.stderr).toContain('Unverified citations (no such file or lines): [nope.py:1]');
    const conversation = /Conversation: (c-[0-9a-f-]+)/.exec(first.stderr)?.[1];
    expect(conversation).toBeDefined();

    fx.server.script.chat.push({ text: 'Follow-up answer.' });
    const json = await cra('chat', 'And who calls it?', '--repo', fx.repo.root, '--conversation', conversation!, '--mode', 'keyword', '--json');
    expect(json.status).toBe(0);
    const lines = json.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; message?: { conversationId: string } });
    expect(lines[0]!.type).toBe('sources');
    expect(lines.at(-1)).toMatchObject({ type: 'done', message: { conversationId: conversation } });
    expect(lines.filter((l) => l.type === 'token').length).toBeGreaterThan(0);
    const answerCall = fx.server.requests.filter((r) => r.path === '/api/chat').at(-1)!.body as { messages: Array<{ content: string }> };
    expect(answerCall.messages.at(-1)!.content).toContain('User: Where are the settings loaded?');
  }, 120_000);

  it('a follow-up request shows its round; --pipeline picks a repository pipeline; --language skips detection', async () => {
    mkdirSync(join(fx.repo.root, '.cleanroom', 'pipelines'), { recursive: true });
    writeFileSync(join(fx.repo.root, '.cleanroom', 'pipelines', 'one.yaml'), 'pipeline:\n  name: one-loop\n  extends: default\n  settings:\n    max_turn_loops: 1\n');
    fx.server.script.chat.push({ text: '[Requesting data on:] send_mail' }, { text: '[Answer:] In [mailer.py:1-3].' });
    const run = await cra('chat', 'Wo wird die Post verschickt?', '--repo', fx.repo.root, '--mode', 'bm25', '--pipeline', 'one-loop', '--language', 'en');
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('In [mailer.py:1-3].\n');
    // bm25, the old name of keyword, still works for one release and says the new name.
    expect(run.stderr).toMatch(/^Note: --mode bm25 is now --mode keyword \(as in cra search\); bm25 is accepted until the next release\.\n/);
    expect(run.stderr).toMatch(/\nFollow-up 1: the model asked for “send_mail”\nSources: mailer\.py:1-3/);
    expect(run.stderr).toMatch(/\nModel calls: answer #\d+, answer #\d+\n/);

    writeFileSync(join(fx.repo.root, '.cleanroom', 'pipelines', 'bad.yaml'), 'pipeline:\n  name: bad\n  extends: nothing\n');
    const bad = await cra('chat', 'x', '--repo', fx.repo.root, '--pipeline', 'bad');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('The chat pipeline "bad" was refused: .cleanroom/pipelines/bad.yaml:3: pipeline "bad": extends "nothing", which is not a known pipeline');
    const language = await cra('chat', 'x', '--repo', fx.repo.root, '--language', 'Polish');
    expect(language.stderr).toContain('"Polish" is not a language; use auto or an ISO 639-1 code');
    rmSync(join(fx.repo.root, '.cleanroom'), { recursive: true, force: true });
  }, 120_000);

  it("detects the question's language while the engine loads and translates as the engine would (languageAhead.ts)", async () => {
    fx.server.script.chat.push({ text: 'Where are the settings loaded?' }, { text: '[Answer:] In [config.py:4-7].' }, { text: 'W [config.py:4-7].' });
    const run = await cra('chat', 'Gdzie są wczytywane ustawienia aplikacji?', '--repo', fx.repo.root, '--mode', 'keyword', '--json');
    expect(run.status, run.stderr).toBe(0);
    const sources = JSON.parse(run.stdout.split('\n')[0]!) as { type: string; trace: { language: unknown } };
    expect(sources.type).toBe('sources');
    expect(sources.trace.language).toEqual({ language: 'pl', source: 'detected', confidence: 1, translated: true, question: 'Where are the settings loaded?' });
  }, 120_000);

  it('refuses a malformed conversation id and an unknown mode with the fix', async () => {
    const bad = await cra('chat', 'x', '--repo', fx.repo.root, '--conversation', 'a b');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('"a b" is not a conversation id');
    const mode = await cra('chat', 'x', '--repo', fx.repo.root, '--mode', 'bm26');
    // The contract's refusal (chat/ask's mode is an enum), not a second list in the command.
    expect(mode.stderr).toContain('cra: error: Invalid input for chat/ask: mode: "bm26" is not a chat mode; use one of auto, keyword, semantic, hybrid.');
  }, 60_000);

  it('streams the answer to stdout while the model is still answering (sources already on stderr); Ctrl+C aborts the call and stores the turn as stopped', async () => {
    const never = new Promise<void>(() => {}); // the server holds the reply after its first chunk
    fx.server.script.chat.push({ chunks: ['Settings are read ', 'by load_config.'], holdAfterFirst: never });
    fx.server.requests.length = 0;
    const child = spawn(process.execPath, [join(packageRoot(), 'bin', 'cra.js'), '--data-dir', fx.dataDir, 'chat', 'Where are the settings loaded?', '--repo', fx.repo.root, '--mode', 'keyword'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let stderrAtFirstToken: string | undefined;
    child.stdout.on('data', (d: Buffer) => {
      stderrAtFirstToken ??= stderr;
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await vi.waitFor(() => expect(stdout).toBe('Settings are read '), { timeout: 60_000, interval: 50 });
    // The first chunk is on stdout while the server still holds the rest; the sources came before it.
    expect(stderrAtFirstToken).toMatch(/^Route: BM25 .*\nSources: .*\bconfig\.py:\d+-\d+/);
    const call = fx.server.requests.find((r) => r.path === '/api/chat')!;
    expect(call.aborted).toBeUndefined();
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(call.aborted).toBe(true);
    expect(stdout).toBe('Settings are read \n');
    const conversation = /Conversation: (c-[0-9a-f-]+)/.exec(stderr)?.[1];
    const exported = await cra('chat', '--export', conversation!, '--repo', fx.repo.root);
    expect(exported.stdout).toContain('## Where are the settings loaded?\n\nSettings are read');
    expect(exported.stdout).toContain('> Stopped before the answer finished.');
  }, 120_000);

  it('--export escapes the terminal control sequences of a stored answer (window title, OSC 52 clipboard, clear screen); --json keeps them exact', async () => {
    const hostile = 'Title\x1b]0;pwned\x07 clip\x1b]52;c;ZXZpbA==\x07 wipe\x1b[2J\x1b[H end\r\x9b1m';
    fx.server.script.chat.push({ text: `[Answer:] ${hostile}` });
    const asked = await cra('chat', 'Print something odd', '--repo', fx.repo.root, '--mode', 'bm25');
    expect(asked.status).toBe(0);
    const id = /Conversation: (c-[0-9a-f-]+)/.exec(asked.stderr)![1]!;

    const md = await cra('chat', '--export', id, '--repo', fx.repo.root);
    expect(md.status).toBe(0);
    expect(md.stdout).not.toMatch(/[\x1b\x07\r\x9b]/);
    expect(md.stdout).toContain('Title\\x1b]0;pwned\\x07 clip\\x1b]52;c;ZXZpbA==\\x07 wipe\\x1b[2J\\x1b[H end\\r\\x9b1m');
    // Newlines of the markdown stay newlines.
    expect(md.stdout).toMatch(/^# Print something odd\n/);

    const json = await cra('chat', '--export', id, '--repo', fx.repo.root, '--json');
    expect((JSON.parse(json.stdout) as { markdown: string }).markdown).toContain(hostile);
  }, 120_000);

  it('--list shows the conversations, --export prints one as markdown, an unknown --conversation is refused before any model call', async () => {
    fx.server.script.chat.push({ text: 'Mail goes out by send_mail [mailer.py:1-3].' });
    const asked = await cra('chat', 'How is mail sent?', '--repo', fx.repo.root, '--mode', 'keyword');
    expect(asked.status).toBe(0);
    const id = /Conversation: (c-[0-9a-f-]+)/.exec(asked.stderr)![1]!;

    const list = await cra('chat', '--list', '--repo', fx.repo.root);
    expect(list.status).toBe(0);
    expect(list.stdout.split('\n')[0]).toMatch(new RegExp(`^${id} +2 messages +\\S+ +How is mail sent\\?$`));
    const listJson = JSON.parse((await cra('chat', '--list', '--repo', fx.repo.root, '--json')).stdout) as { conversations: Array<{ conversationId: string }> };
    expect(listJson.conversations[0]!.conversationId).toBe(id);

    const md = await cra('chat', '--export', id, '--repo', fx.repo.root);
    expect(md.status).toBe(0);
    expect(md.stdout).toMatch(/^# How is mail sent\?\n/);
    expect(md.stdout).toContain('Mail goes out by send_mail [mailer.py:1-3].');

    const before = fx.server.requests.length;
    const unknown = await cra('chat', 'More?', '--repo', fx.repo.root, '--conversation', 'c-nope');
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('has no conversation c-nope');
    expect(unknown.stderr).toContain('cra chat --list');
    expect(fx.server.requests.length).toBe(before);
    const neither = await cra('chat', '--repo', fx.repo.root);
    expect(neither.status).toBe(1);
    expect(neither.stderr).toContain('Give a question, or --list, or --export <id>');
    const exportMissing = await cra('chat', '--export', 'c-nope', '--repo', fx.repo.root);
    expect(exportMissing.stderr).toContain('has no conversation c-nope');
  }, 120_000);
});
