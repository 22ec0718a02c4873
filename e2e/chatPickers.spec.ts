import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, screenshot, startServe, test } from './fixtures/app';
import { createFixtureRepo, FIXTURE, type FixtureRepo } from './fixtures/gitRepo';
import { startModelServer } from './fixtures/ollamaServer';

/*
 * The Chat page's pickers: the pipeline of a conversation (the built-in one, the repository's own,
 * a refused one shown with its file, line and reason), the repository's default pipeline, and the
 * language of the question, each visible in "How this answer was made".
 */

/** A repository pipeline with a small history budget and one follow-up, so both show in one conversation. */
const TEAM = 'pipeline:\n  name: team\n  extends: default\n  settings:\n    max_history_tokens: 40\n    max_turn_loops: 1\n';
/** A pipeline whose route step goes to a step that does not exist (line 5). */
const BROKEN = 'pipeline:\n  name: broken\n  extends: default\n  steps:\n    - id: route\n      action: route_question\n      on_retrieve: search\n      on_direct: answer\n';

let repo: FixtureRepo;
test.beforeEach(() => {
  repo = createFixtureRepo();
});
test.afterEach(() => repo.remove());

/** Add the fixture repository in the app, wait for its index and open Chat. */
async function openChat(page: Page, url: string) {
  await page.goto(url);
  await page.getByLabel('Repository folder path').fill(repo.dir);
  await page.getByRole('button', { name: 'Add repository' }).click();
  await expect(page.getByTestId('repo-row').getByTestId('repo-status')).toHaveText('ready', { timeout: 45_000 });
  await page.getByRole('button', { name: 'Chat', exact: true }).click();
  return page.getByRole('main', { name: 'Chat' });
}

test.describe('Chat pickers (cra serve, loopback model server)', () => {
  test('a repository pipeline is chosen per conversation, named in the trace with its follow-up and history summary, and made the default; a refused one shows why', async ({ page, pageErrors }) => {
    mkdirSync(join(repo.dir, '.cleanroom', 'pipelines'), { recursive: true });
    writeFileSync(join(repo.dir, '.cleanroom', 'pipelines', 'team.yaml'), TEAM);
    writeFileSync(join(repo.dir, '.cleanroom', 'pipelines', 'broken.yaml'), BROKEN);
    const server = await startModelServer();
    const served = await startServe({ OLLAMA_HOST: server.url });
    try {
      writeFileSync(join(served.app.dataDir, 'config.toml'), `[models]\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\nbase_url = "${server.url}"\n`);
      const main = await openChat(page, served.app.url);
      const picker = main.getByLabel('Pipeline', { exact: true });
      await expect(picker.locator('option')).toHaveText(['default (built-in)', 'team · extends default', 'broken (refused)']);
      await expect(picker.locator('option', { hasText: 'broken' })).toBeDisabled();
      await expect(picker).toHaveValue('default');
      await expect(main.getByTestId('chat-pipeline-problem')).toHaveText(
        '.cleanroom/pipelines/broken.yaml:5 · pipeline “broken”: step "route" goes to "search", which is not a step of this pipeline',
      );
      await screenshot(page, 'chat-pickers-refused');

      await main.getByLabel('Retrieval mode').selectOption('keyword');
      await picker.selectOption('team');
      server.script.chat.push({ text: `[Answer:] compute_discount [${FIXTURE.functionFile}:4-6] takes the percent off the price and rounds it to cents; Cart.total calls it with the gross sum of the items.` });
      await main.getByLabel('Question').fill('Where is the discount computed?');
      await main.getByRole('button', { name: 'Ask' }).click();
      const first = main.getByTestId('chat-turn').first();
      await expect(first.getByTestId('chat-answer')).toContainText('takes the percent off the price');
      await expect(first.getByTestId('chat-trace').locator('summary').first()).toHaveText('How this answer was made · keyword search · a where-is question · pipeline team');

      // The second question: the history is over the pipeline's 40 tokens (summarized first), and the
      // answer model asks for more once before it answers.
      server.script.chat.push(
        { text: 'Earlier: the discount is computed by compute_discount in inventory/pricing.py, called by Cart.total.' },
        { text: `[Requesting data on:] ${FIXTURE.classInFunctionFile}` },
        { text: `[Answer:] From the PriceBook [${FIXTURE.functionFile}:9-16].` },
      );
      await main.getByLabel('Question').fill('And where do the prices come from?');
      await main.getByRole('button', { name: 'Ask' }).click();
      const second = main.getByTestId('chat-turn').nth(1);
      await expect(second.getByTestId('chat-answer')).toHaveText(`From the PriceBook [${FIXTURE.functionFile}:9-16].`);
      const trace = second.getByTestId('chat-trace');
      await trace.locator('summary').first().click();
      // The pipeline, and the repository's refused one beneath it.
      const pipelineRow = trace.locator('dt', { hasText: 'Pipeline' }).locator('+ dd');
      await expect(pipelineRow).toContainText('team (extends default)');
      await expect(pipelineRow.locator('div')).toHaveText(['.cleanroom/pipelines/broken.yaml:5: pipeline "broken": step "route" goes to "search", which is not a step of this pipeline']);
      await expect(trace.locator('dt', { hasText: 'Follow-ups' }).locator('+ dd')).toHaveText(`1 of 1 · “${FIXTURE.classInFunctionFile}”`);
      await expect(trace.getByTestId('chat-trace-round')).toHaveCount(2);
      await expect(trace.getByTestId('chat-trace-round').nth(1)).toContainText(`Round 1 · asked for “${FIXTURE.classInFunctionFile}”`);
      await expect(trace.locator('dt', { hasText: 'History' }).locator('+ dd')).toContainText('written by this turn');
      await expect(trace.getByLabel('History summary')).toHaveText('Earlier: the discount is computed by compute_discount in inventory/pricing.py, called by Cart.total.');
      await expect(trace.locator('.chat-calls > li > details > summary')).toHaveText([/^History summary · qwen3:0\.6b/, /^Write the answer · /, /^Write the answer · /]);
      await trace.getByLabel('History summary').scrollIntoViewIfNeeded();
      // The turns scroll inside the page: the question box stays in view under a long trace.
      await expect(main.getByLabel('Question')).toBeInViewport();
      await screenshot(page, 'chat-followup-history-trace');

      // The repository's default: new conversations start with it, also after a reload.
      await main.getByRole('button', { name: 'Make default' }).click();
      await expect(picker.locator('option', { hasText: /^team/ })).toHaveText('team (repository default) · extends default');
      await main.getByRole('button', { name: 'New conversation' }).click();
      await expect(picker).toHaveValue('team');
      await page.reload();
      await page.getByRole('button', { name: 'Chat', exact: true }).click();
      await expect(picker).toHaveValue('team');
      await screenshot(page, 'chat-pickers-default');
      await main.getByRole('button', { name: 'Unset default' }).click();
      await expect(picker).toHaveValue('default');
      await expect(picker.locator('option', { hasText: /^team/ })).toHaveText('team · extends default');
      // The conversation keeps the pipeline it ran.
      await main.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: 'Where is the discount computed?' }).click();
      await expect(main.getByTestId('chat-turn')).toHaveCount(2);
      await expect(picker).toHaveValue('team');

      // A fixed file is read again when the picker is opened: the pipeline can be chosen, its error is gone.
      writeFileSync(join(repo.dir, '.cleanroom', 'pipelines', 'broken.yaml'), BROKEN.replace('on_retrieve: search', 'on_retrieve: retrieve'));
      await picker.focus();
      await expect(picker.locator('option')).toHaveText(['default (built-in)', 'broken · extends default', 'team · extends default']);
      await expect(main.getByTestId('chat-pipeline-problem')).toHaveCount(0);
      expect(pageErrors).toEqual([]);
    } finally {
      await served.stop();
      await server.close();
    }
  });

  test('a chosen language translates the question in and the answer back, both calls in the trace; auto shows what it detected', async ({ page, pageErrors }) => {
    const server = await startModelServer();
    const served = await startServe({ OLLAMA_HOST: server.url });
    try {
      writeFileSync(join(served.app.dataDir, 'config.toml'), `[models]\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\nbase_url = "${server.url}"\n`);
      const main = await openChat(page, served.app.url);
      await main.getByLabel('Retrieval mode').selectOption('keyword');
      const language = main.getByLabel('Language');
      await expect(language).toHaveValue('auto');
      await language.selectOption('pl');
      server.script.chat.push(
        { text: 'Where is the discount computed?' },
        { text: `[Answer:] In compute_discount [${FIXTURE.functionFile}:4-6].` },
        { chunks: ['Rabat liczy ', `compute_discount [${FIXTURE.functionFile}:4-6].`] },
      );
      await main.getByLabel('Question').fill('Gdzie jest liczony rabat?');
      await main.getByRole('button', { name: 'Ask' }).click();
      const turn = main.getByTestId('chat-turn');
      await expect(turn.getByTestId('chat-answer')).toHaveText(`Rabat liczy compute_discount [${FIXTURE.functionFile}:4-6].`);
      await expect(turn.getByTestId('chat-answer').getByRole('button', { name: `[${FIXTURE.functionFile}:4-6]` })).toBeVisible();
      const trace = turn.getByTestId('chat-trace');
      await expect(trace.locator('summary').first()).toHaveText('How this answer was made · keyword search · a where-is question · translated from pl');
      await trace.locator('summary').first().click();
      await expect(trace.locator('dt', { hasText: 'Language' }).locator('+ dd')).toHaveText('pl (chosen, 100%) · translated in and back');
      await expect(trace.locator('.chat-calls > li > details > summary')).toHaveText([/^Translate in · qwen3:0\.6b/, /^Write the answer · /, /^Translate out · /]);
      await trace.locator('.chat-calls > li').first().locator('summary').click({ position: { x: 5, y: 5 } });
      await expect(trace.locator('.chat-calls > li').first().getByLabel('System')).toContainText("Translate the user's text into English.");
      await expect(trace.locator('.chat-calls > li').first().getByLabel('Reply')).toHaveText('Where is the discount computed?');
      // The question retrieval saw is the English one.
      const prompts = server.requests.filter((r) => r.path === '/api/chat').map((r) => JSON.stringify(r.body));
      expect(prompts[1]).toContain('Where is the discount computed?');
      await screenshot(page, 'chat-language-trace');

      // Back to auto: the language is detected offline, and the picker says what it found.
      await main.getByRole('button', { name: 'New conversation' }).click();
      // The language is chosen per conversation: a new one starts on auto.
      await expect(language).toHaveValue('auto');
      await language.selectOption('auto');
      server.script.chat.push({ text: `[Answer:] In compute_discount [${FIXTURE.functionFile}:4-6].` });
      await main.getByLabel('Question').fill('Where is the discount of a cart computed?');
      await main.getByRole('button', { name: 'Ask' }).click();
      await expect(main.getByTestId('chat-turn').getByTestId('chat-answer')).toHaveText(`In compute_discount [${FIXTURE.functionFile}:4-6].`);
      await expect(language.locator('option').first()).toHaveText('auto (detected: English)');
      // The Polish conversation goes on in Polish when opened again.
      await main.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: 'Gdzie jest liczony rabat?' }).click();
      await expect(language).toHaveValue('pl');
      expect(pageErrors).toEqual([]);
    } finally {
      await served.stop();
      await server.close();
    }
  });
});
