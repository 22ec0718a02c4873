import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, screenshot, startServe, test } from './fixtures/app';
import { createFixtureRepo, FIXTURE, type FixtureRepo } from './fixtures/gitRepo';
import { startModelServer } from './fixtures/ollamaServer';

let repo: FixtureRepo;
test.beforeEach(() => {
  repo = createFixtureRepo();
});
test.afterEach(() => repo.remove());

test.describe('Chat (cra serve, loopback model server)', () => {
  test('a question gets its sources first, then a streamed answer whose citation opens the file at the line', async ({ page, pageErrors }) => {
    const server = await startModelServer();
    const served = await startServe({ OLLAMA_HOST: server.url });
    try {
      writeFileSync(join(served.app.dataDir, 'config.toml'), `[models]\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\nbase_url = "${server.url}"\n`);
      // The router thinks first (removed), then answers with one valid line.
      server.script.chat.push({ text: '<think>The user names a function.</think>\n[BM25:] compute_discount' });
      server.script.chat.push({
        chunks: ['<think>cite the pricing module</think>', '[Answer:] The discount is computed by ', '`compute_discount` ', `[${FIXTURE.functionFile}:4-6]`, '; a made-up file ', '[inventory/refunds.py:3]', ' is flagged.'],
        chunkDelayMs: 150,
      });

      await page.goto(served.app.url);
      await page.getByLabel('Repository folder path').fill(repo.dir);
      await page.getByRole('button', { name: 'Add repository' }).click();
      await expect(page.getByTestId('repo-row').getByTestId('repo-status')).toHaveText('ready', { timeout: 45_000 });
      await page.getByRole('button', { name: 'Chat', exact: true }).click();
      const main = page.getByRole('main', { name: 'Chat' });

      // Record, in the page, whether the sources were on screen before the first answer text.
      await page.evaluate(() => {
        const w = window as unknown as { chatOrder: string[] };
        w.chatOrder = [];
        new MutationObserver(() => {
          const has = (what: string) => w.chatOrder.includes(what);
          if (!has('sources') && document.querySelector('[data-testid="chat-sources"] .chat-chip')) w.chatOrder.push('sources');
          if (!has('answer') && (document.querySelector('[data-testid="chat-answer"]')?.textContent ?? '').trim() !== '') w.chatOrder.push('answer');
        }).observe(document.body, { subtree: true, childList: true, characterData: true });
      });
      await main.getByLabel('Question').fill('Where is the discount computed?');
      await main.getByRole('button', { name: 'Ask' }).click();

      const turn = main.getByTestId('chat-turn');
      await expect(turn.getByTestId('chat-sources').getByRole('button', { name: new RegExp(`^${FIXTURE.functionFile}:\\d+-\\d+$`) })).toBeVisible();
      const answer = turn.getByTestId('chat-answer');
      await expect(answer).toHaveText('The discount is computed by `compute_discount` [inventory/pricing.py:4-6]; a made-up file [inventory/refunds.py:3] is flagged.');
      expect(await page.evaluate(() => (window as unknown as { chatOrder: string[] }).chatOrder)).toEqual(['sources', 'answer']);
      await expect(turn).not.toContainText('cite the pricing module');
      await expect(turn).not.toContainText('<think>');
      await expect(turn.locator('.chat-trace summary')).toHaveText('BM25 · search · keyword');
      // The invented path is flagged, not a link; the real one is a link.
      await expect(answer.locator('.chat-citation.unverified')).toHaveText('[inventory/refunds.py:3]');
      await expect(answer.getByRole('button', { name: '[inventory/refunds.py:3]' })).toHaveCount(0);
      await screenshot(page, 'chat-answer');

      await answer.getByRole('button', { name: `[${FIXTURE.functionFile}:4-6]` }).click();
      const view = page.getByTestId('file-view');
      await expect(view.locator('.file-path')).toHaveText(FIXTURE.functionFile);
      const editor = view.locator('.monaco-editor');
      await expect(editor.locator('.view-lines')).toContainText(FIXTURE.functionLine);
      // The cited lines 4–6 are selected (CodeView's reveal): Monaco's cursor sits at the selection's end.
      await expect(editor.locator('.line-numbers.active-line-number')).toHaveText('6');
      await expect(editor.locator('.selected-text').first()).toBeVisible();
      await screenshot(page, 'chat-citation-opened');

      // The conversation is kept: back on Chat it is listed and shown again.
      await page.getByRole('button', { name: 'Chat', exact: true }).click();
      await expect(main.getByRole('navigation', { name: 'Conversations' })).toContainText('Where is the discount computed?');
      await expect(main.getByTestId('chat-answer')).toContainText('The discount is computed by');
      expect(pageErrors).toEqual([]);
    } finally {
      await served.stop();
      await server.close();
    }
  });
});
