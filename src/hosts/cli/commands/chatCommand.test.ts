import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../../core/paths';
import { createChatRepo } from '../../../core/testing/chatRepo';
import type { TestRepo } from '../../../core/testing/gitRepo';
import { OllamaTestServer } from '../../../core/testing/ollamaTestServer';
import { runCra, type CraOutput } from '../testing/cra';

let server: OllamaTestServer;
let repo: TestRepo;
let dataDir: string;

/** Run cra asynchronously (the test server answers in this process, so spawnSync would block it). */
function cra(...args: string[]): Promise<CraOutput> {
  return runCra(dataDir, args);
}

beforeAll(async () => {
  server = await OllamaTestServer.start();
  server.install('qwen3:0.6b');
  repo = createChatRepo();
  dataDir = mkdtempSync(join(tmpdir(), 'cra-cli-chat-'));
  writeFileSync(join(dataDir, 'config.toml'), `[models]\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\nbase_url = "${server.url}"\n`);
  expect(spawnSync(process.execPath, [join(packageRoot(), 'bin', 'cra.js'), '--data-dir', dataDir, 'index', repo.root, '--json'], { encoding: 'utf8', timeout: 120_000 }).status).toBe(0);
}, 180_000);
afterAll(async () => {
  await server.close();
  repo.cleanup();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('cra chat', () => {
  it('prints the route and sources on stderr, streams the answer to stdout, flags an invented citation, and continues a conversation', async () => {
    server.script.chat.push({ text: '[BM25:] load_config' });
    server.script.chat.push({ chunks: ['<think>hmm</think>', 'Read by load_config ', '[config.py:4-7]', ' not [nope.py:1].'] });
    const first = await cra('chat', 'Where are the settings loaded?', '--repo', repo.root);
    expect(first.status).toBe(0);
    expect(first.stdout).toBe('Read by load_config [config.py:4-7] not [nope.py:1].\n');
    expect(first.stderr).toMatch(/^Route: BM25 “load_config” · SEARCH · keyword\nSources: config\.py:\d+-\d+ /);
    expect(first.stderr).toContain('Unverified citations (no such file or lines): [nope.py:1]');
    const conversation = /Conversation: (c-[0-9a-f-]+)/.exec(first.stderr)?.[1];
    expect(conversation).toBeDefined();

    server.script.chat.push({ text: 'Follow-up answer.' });
    const json = await cra('chat', 'And who calls it?', '--repo', repo.root, '--conversation', conversation!, '--mode', 'bm25', '--json');
    expect(json.status).toBe(0);
    const lines = json.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; message?: { conversationId: string } });
    expect(lines[0]!.type).toBe('sources');
    expect(lines.at(-1)).toMatchObject({ type: 'done', message: { conversationId: conversation } });
    expect(lines.filter((l) => l.type === 'token').length).toBeGreaterThan(0);
    const answerCall = server.requests.filter((r) => r.path === '/api/chat').at(-1)!.body as { messages: Array<{ content: string }> };
    expect(answerCall.messages.at(-1)!.content).toContain('User: Where are the settings loaded?');
  }, 120_000);

  it('a follow-up request shows its round; --pipeline picks a repository pipeline; --language skips detection', async () => {
    mkdirSync(join(repo.root, '.cleanroom', 'pipelines'), { recursive: true });
    writeFileSync(join(repo.root, '.cleanroom', 'pipelines', 'one.yaml'), 'pipeline:\n  name: one-loop\n  extends: default\n  settings:\n    max_turn_loops: 1\n');
    server.script.chat.push({ text: '[Requesting data on:] send_mail' }, { text: '[Answer:] In [mailer.py:1-3].' });
    const run = await cra('chat', 'Wo wird die Post verschickt?', '--repo', repo.root, '--mode', 'bm25', '--pipeline', 'one-loop', '--language', 'en');
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('In [mailer.py:1-3].\n');
    expect(run.stderr).toMatch(/\nFollow-up 1: the model asked for “send_mail”\nSources: mailer\.py:1-3/);
    expect(run.stderr).toMatch(/\nModel calls: answer #\d+, answer #\d+\n/);

    writeFileSync(join(repo.root, '.cleanroom', 'pipelines', 'bad.yaml'), 'pipeline:\n  name: bad\n  extends: nothing\n');
    const bad = await cra('chat', 'x', '--repo', repo.root, '--pipeline', 'bad');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('The chat pipeline "bad" was refused: .cleanroom/pipelines/bad.yaml:3: pipeline "bad": extends "nothing", which is not a known pipeline');
    const language = await cra('chat', 'x', '--repo', repo.root, '--language', 'Polish');
    expect(language.stderr).toContain('"Polish" is not a language; use auto or an ISO 639-1 code');
    rmSync(join(repo.root, '.cleanroom'), { recursive: true, force: true });
  }, 120_000);

  it('refuses a malformed conversation id and an unknown mode with the fix', async () => {
    const bad = await cra('chat', 'x', '--repo', repo.root, '--conversation', 'a b');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('"a b" is not a conversation id');
    const mode = await cra('chat', 'x', '--repo', repo.root, '--mode', 'keyword');
    expect(mode.stderr).toContain('"keyword" is not a mode; use one of auto, bm25, semantic, hybrid');
  }, 60_000);
});
