import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chatRequests, type RepoInfo } from '../../../shared/contract';
import { REPO_PIPELINE_DIR } from '../../features/chat/pipeline';
import type { TestRepo } from '../../testing/gitRepo';
import type { OllamaTestServer } from '../../testing/ollamaTestServer';
import { useChatFixture } from '../../testing/chatFixture';

/*
 * Which pipeline a turn runs when the request names none: the conversation's, else the
 * repository's chosen default (chat/setDefaultPipeline, kept in the registry), else `default`.
 */

const fx = useChatFixture({ engineConfig: '' });
const { core, pipelineFile } = fx;
let server: OllamaTestServer;
let repo: TestRepo;
let repoId: string;

beforeAll(() => ({ server, repo, repoId } = fx));
beforeEach(async () => {
  rmSync(join(repo.root, '.cleanroom'), { recursive: true, force: true });
  await core.handlers['chat/setDefaultPipeline']({ repoId, pipeline: null });
});

const TEAM = 'pipeline:\n  name: team\n  extends: default\n  settings:\n    max_turn_loops: 1\n';

/** Ask in keyword mode; the pipeline the stored answer's trace names, and the conversation. */
async function ask(question: string, options: { conversationId?: string; pipeline?: string } = {}) {
  server.script.chat.push({ text: '[Answer:] ok' });
  const { runId, conversationId } = await core.handlers['chat/ask']({ repoId, question, mode: 'bm25', ...options });
  await core.runs.wait(runId);
  const { messages } = await core.handlers['chat/history']({ repoId, conversationId });
  const trace = messages.at(-1)!.trace!;
  return { conversationId, pipeline: trace.pipeline!.name, problems: trace.pipeline!.problems };
}

describe("a repository's default chat pipeline", () => {
  it('is kept in the registry, listed by chat/pipelines and run by a new conversation; null goes back to the built-in one', async () => {
    pipelineFile('team.yaml', TEAM);
    const changed: RepoInfo[] = [];
    const stop = core.events.on('repos/changed', (info) => changed.push(info));
    const set = await core.handlers['chat/setDefaultPipeline']({ repoId, pipeline: 'team' });
    stop();
    expect(set).toMatchObject({ defaultPipeline: 'team', repo: { id: repoId, settings: { chatPipeline: 'team' } } });
    expect(changed.map((r) => r.settings)).toEqual([{ chatPipeline: 'team' }]);
    expect((await core.handlers['repos/get']({ repoId })).settings).toEqual({ chatPipeline: 'team' });
    const listed = await core.handlers['chat/pipelines']({ repoId });
    expect(listed.pipelines.map((p) => p.name)).toEqual(['default', 'team']);
    expect(listed.defaultPipeline).toBe('team');
    expect(listed.chosenDefault).toBeUndefined();

    expect((await ask('Where is send_mail?')).pipeline).toBe('team');
    // Named in the request, another pipeline wins.
    expect((await ask('Where is send_mail?', { pipeline: 'default' })).pipeline).toBe('default');

    const cleared = await core.handlers['chat/setDefaultPipeline']({ repoId, pipeline: null });
    expect(cleared.defaultPipeline).toBe('default');
    expect(cleared.repo.settings).toBeUndefined();
    expect((await ask('Where is send_mail?')).pipeline).toBe('default');
  });

  it('refuses a pipeline the repository cannot use, with the file, line and reason; the setting is left as it was', async () => {
    pipelineFile('team.yaml', TEAM);
    pipelineFile('broken.yaml', 'pipeline:\n  name: broken\n  extends: nothing\n');
    await core.handlers['chat/setDefaultPipeline']({ repoId, pipeline: 'team' });
    await expect(core.handlers['chat/setDefaultPipeline']({ repoId, pipeline: 'broken' })).rejects.toMatchObject({
      code: 'VALIDATION',
      message: expect.stringContaining('refused: .cleanroom/pipelines/broken.yaml:3: pipeline "broken": extends "nothing", which is not a known pipeline'),
    });
    expect((await core.handlers['chat/pipelines']({ repoId })).refused).toEqual([
      { name: 'broken', file: '.cleanroom/pipelines/broken.yaml', line: 3, message: 'extends "nothing", which is not a known pipeline (known: default, team)' },
    ]);
    await expect(core.handlers['chat/setDefaultPipeline']({ repoId, pipeline: 'nope' })).rejects.toMatchObject({
      code: 'VALIDATION',
      message: expect.stringMatching(/ has no chat pipeline "nope"; choose one of default, team \(a repository adds its own in \.cleanroom\/pipelines\/\*\.yaml\)\.$/),
    });
    expect((await core.handlers['repos/get']({ repoId })).settings).toEqual({ chatPipeline: 'team' });
  });

  it('a chosen default that breaks later gives way to the built-in one, said in chat/pipelines and in the trace', async () => {
    pipelineFile('team.yaml', TEAM);
    await core.handlers['chat/setDefaultPipeline']({ repoId, pipeline: 'team' });
    pipelineFile('team.yaml', 'pipeline:\n  name: team\n  extends: default\n  settings:\n    max_turn_loops: many\n');
    const listed = await core.handlers['chat/pipelines']({ repoId });
    expect(listed.defaultPipeline).toBe('default');
    expect(listed.chosenDefault).toEqual({ name: 'team', problem: expect.stringContaining('.cleanroom/pipelines/team.yaml:5: pipeline "team": settings.max_turn_loops') });
    const turn = await ask('Where is send_mail?');
    expect(turn.pipeline).toBe('default');
    expect(turn.problems[0]).toMatch(/^The pipeline "team" \(the repository's default\) cannot be used now \(refused: .*team\.yaml:5/);
  });
});

describe("a conversation's pipeline", () => {
  it('is listed with the conversation and kept when it goes on without naming one, whatever the default is now', async () => {
    pipelineFile('team.yaml', TEAM);
    const first = await ask('Where is send_mail?', { pipeline: 'team' });
    expect(first.pipeline).toBe('team');
    const { conversations } = await core.handlers['chat/history']({ repoId });
    expect(conversations.find((c) => c.conversationId === first.conversationId)).toMatchObject({ pipeline: 'team' });
    expect((await ask('And who calls it?', { conversationId: first.conversationId })).pipeline).toBe('team');
    // A conversation whose pipeline is gone goes on with the built-in one and says so.
    rmSync(join(repo.root, REPO_PIPELINE_DIR, 'team.yaml'));
    const after = await ask('And then?', { conversationId: first.conversationId });
    expect(after.pipeline).toBe('default');
    expect(after.problems[0]).toBe('The pipeline "team" (this conversation ran) cannot be used now (no pipeline file defines it any more); the built-in default ran instead.');
  });

  it('keeps the language chosen for its latest question', async () => {
    server.script.chat.push({ text: 'Where is mail sent?' }, { text: '[Answer:] In mailer.py.' }, { text: 'W mailer.py.' });
    const { runId, conversationId } = await core.handlers['chat/ask']({ repoId, question: 'Gdzie jest wysyłana poczta?', mode: 'bm25', language: 'pl' });
    await core.runs.wait(runId);
    const { conversations } = await core.handlers['chat/history']({ repoId });
    expect(conversations.find((c) => c.conversationId === conversationId)).toMatchObject({ language: 'pl', pipeline: 'default' });
  });
});

describe('the contract of chat/setDefaultPipeline', () => {
  const input = chatRequests['chat/setDefaultPipeline'].input;
  it('takes a pipeline name or null, and nothing else', () => {
    expect(input.parse({ repoId: 'r', pipeline: 'team.v2' })).toEqual({ repoId: 'r', pipeline: 'team.v2' });
    expect(input.parse({ repoId: 'r', pipeline: null })).toEqual({ repoId: 'r', pipeline: null });
    expect(input.safeParse({ repoId: 'r', pipeline: '../etc' }).error?.issues[0]?.message).toBe('pipeline must be a pipeline name (1–64 letters, digits, _ . or -)');
    expect(input.safeParse({ repoId: 'r' }).success).toBe(false);
    expect(input.safeParse({ repoId: 'r', pipeline: 'team', extra: 1 }).success).toBe(false);
  });
});
