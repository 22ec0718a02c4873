import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChatPipelines, RepoInfo } from '../../../shared/contract';
import { useCliModelRepo } from '../testing/modelRepo';
import { type CraOutput } from '../testing/cra';

/*
 * `cra pipelines`: the chat pipelines of a repository and its default for new conversations,
 * set from the CLI as the Chat page's "Make default" sets it; a `cra chat` without --pipeline then
 * runs it.
 */

const fx = useCliModelRepo({
  prefix: 'cra-cli-pipelines-',
  prepare: (repo) => {
    mkdirSync(join(repo.root, '.cleanroom', 'pipelines'), { recursive: true });
    writeFileSync(join(repo.root, '.cleanroom', 'pipelines', 'team.yaml'), 'pipeline:\n  name: team\n  extends: default\n  settings:\n    max_turn_loops: 1\n');
    writeFileSync(join(repo.root, '.cleanroom', 'pipelines', 'bad.yaml'), 'pipeline:\n  name: bad\n  extends: nothing\n');
  },
});

function cra(...args: string[]): Promise<CraOutput> {
  return fx.cra(args);
}

/** The pipeline the last answer of a `cra chat --json` run says it ran. */
function pipelineRun(out: CraOutput): string | undefined {
  const done = out.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; message?: { trace?: { pipeline?: { name: string } } } }).find((l) => l.type === 'done');
  return done?.message?.trace?.pipeline?.name;
}

describe('cra pipelines', () => {
  it('lists the usable pipelines with the default marked, and the refused ones with file:line and the reason', async () => {
    const listed = await cra('pipelines', '--repo', fx.repo.root);
    expect(listed.status).toBe(0);
    expect(listed.stdout).toMatch(/^\* default {2}resources\/pipelines\/default\.yaml\n {2}team {5}\.cleanroom\/pipelines\/team\.yaml {2}\(extends default\)\n/);
    expect(listed.stdout).toContain('\n* the default for new conversations: default\n');
    expect(listed.stdout).toContain('\nRefused (fix the file to use it):\n  .cleanroom/pipelines/bad.yaml:3: pipeline "bad": extends "nothing", which is not a known pipeline (known: default, team)\n');
    const json = JSON.parse((await cra('pipelines', '--repo', fx.repo.root, '--json')).stdout) as ChatPipelines;
    expect(json.pipelines.map((p) => p.name)).toEqual(['default', 'team']);
    expect(json.refused).toEqual([expect.objectContaining({ name: 'bad', file: '.cleanroom/pipelines/bad.yaml', line: 3 })]);
  }, 60_000);

  it('--set-default makes a pipeline the default a new `cra chat` runs; --unset-default goes back to the built-in one', async () => {
    const set = await cra('pipelines', '--repo', fx.repo.root, '--set-default', 'team');
    expect(set.status).toBe(0);
    expect(set.stdout).toMatch(/^New conversations of \S+ start with the pipeline "team"\.\n$/);
    expect((await cra('pipelines', '--repo', fx.repo.root)).stdout).toMatch(/\n\* team .*\n[\s\S]*\* the default for new conversations: team\n/);

    fx.server.script.chat.push({ text: '[Answer:] In [mailer.py:1-3].' });
    expect(pipelineRun(await cra('chat', 'Where is mail sent?', '--repo', fx.repo.root, '--mode', 'bm25', '--json'))).toBe('team');

    const unset = await cra('pipelines', '--repo', fx.repo.root, '--unset-default', '--json');
    expect(unset.status).toBe(0);
    const cleared = JSON.parse(unset.stdout) as ChatPipelines & { repo: RepoInfo };
    expect(cleared.defaultPipeline).toBe('default');
    expect(cleared.repo.settings).toBeUndefined();
    fx.server.script.chat.push({ text: '[Answer:] In [mailer.py:1-3].' });
    expect(pipelineRun(await cra('chat', 'Where is mail sent?', '--repo', fx.repo.root, '--mode', 'bm25', '--json'))).toBe('default');
  }, 120_000);

  it('refuses an unknown or refused pipeline, a bad name, both flags and an unknown repository, naming the problem and the fix; the default is left as it was', async () => {
    expect((await cra('pipelines', '--repo', fx.repo.root, '--set-default', 'team')).status).toBe(0);
    const unknown = await cra('pipelines', '--repo', fx.repo.root, '--set-default', 'nope');
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(/^cra: error: \S+ has no chat pipeline "nope"; choose one of default, team \(a repository adds its own in \.cleanroom\/pipelines\/\*\.yaml\)\.\n$/);
    const refused = await cra('pipelines', '--repo', fx.repo.root, '--set-default', 'bad');
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('cannot be the default of');
    expect(refused.stderr).toContain('refused: .cleanroom/pipelines/bad.yaml:3: pipeline "bad": extends "nothing", which is not a known pipeline (known: default, team). Fix the file, or choose another pipeline.');
    const name = await cra('pipelines', '--repo', fx.repo.root, '--set-default', '../x');
    expect(name.status).not.toBe(0);
    expect(name.stderr).toContain('"../x" is not a pipeline name');
    const both = await cra('pipelines', '--repo', fx.repo.root, '--set-default', 'team', '--unset-default');
    expect(both.status).toBe(1);
    expect(both.stderr).toContain('Give --set-default <name> or --unset-default, not both.');
    expect((await cra('pipelines', '--repo', fx.repo.root)).stdout).toContain('* the default for new conversations: team\n');

    const missing = await cra('pipelines', '--repo', join(fx.repo.root, 'no-such-folder'), '--set-default', 'team');
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('no-such-folder does not exist; give the folder of an indexed repository (--repo PATH).');
    const notIndexed = mkdtempSync(join(tmpdir(), 'cra-cli-pipelines-plain-'));
    try {
      const plain = await cra('pipelines', '--repo', notIndexed);
      expect(plain.status).toBe(1);
      expect(plain.stderr).toContain('is not indexed yet; run `cra index');
    } finally {
      rmSync(notIndexed, { recursive: true, force: true });
    }
  }, 120_000);
});
