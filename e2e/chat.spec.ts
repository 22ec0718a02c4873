import { readFileSync } from 'node:fs';
import { expect, screenshot, startServe, test } from './fixtures/app';
import { createFixtureRepo, FIXTURE, type FixtureRepo } from './fixtures/gitRepo';
import { addReadyRepository, openChat, openKeywordChat, useLoopbackModels } from './fixtures/pages';
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
      useLoopbackModels(served.app, server.url);
      // The router thinks first (removed), then answers with one valid line.
      server.script.chat.push({ text: '<think>The user names a function.</think>\n[BM25:] compute_discount' });
      server.script.chat.push({
        chunks: [
          '<think>cite the pricing module</think>',
          '[Answer:] The discount is computed by ',
          '`compute_discount` ',
          `[${FIXTURE.functionFile}:4-6]`,
          '; a made-up file ',
          '[inventory/refunds.py:3]',
          ' and a line past the end ',
          `[${FIXTURE.functionFile}:999]`,
          ' are flagged.\n\n- **first** point\n- second point\n\n```python\nprint(1)\n```\n',
        ],
        chunkDelayMs: 150,
      });

      await addReadyRepository(page, served.app, repo.dir);
      const main = await openChat(page);
      await expect(main.getByTestId('chat-models')).toContainText('answers: qwen3:0.6b · routing: qwen3:0.6b');

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
      await expect(answer.locator('p').first()).toHaveText(
        'The discount is computed by compute_discount [inventory/pricing.py:4-6]; a made-up file [inventory/refunds.py:3] and a line past the end [inventory/pricing.py:999] are flagged.',
      );
      expect(await page.evaluate(() => (window as unknown as { chatOrder: string[] }).chatOrder)).toEqual(['sources', 'answer']);
      // Thinking is removed from the answer (the trace keeps the router's reply as it came).
      await expect(answer).not.toContainText('cite the pricing module');
      await expect(answer).not.toContainText('<think>');
      // Rendered as markdown: inline code, a list with emphasis, a code block.
      await expect(answer.locator('code').first()).toHaveText('compute_discount');
      await expect(answer.locator('li strong')).toHaveText('first');
      await expect(answer.locator('pre code')).toHaveText('print(1)');
      // The code block is coloured by Monaco's tokenizer once the answer is done.
      await expect(answer.locator('pre code[data-highlighted="python"] span[class^="mtk"]').first()).toBeVisible();
      await expect(turn.getByTestId('chat-trace').locator('summary').first()).toHaveText('How this answer was made · keyword search · a where-is question');
      // The invented path and the line past the end are flagged, not links; the real one is a link.
      await expect(answer.locator('.chat-citation.unverified')).toHaveText(['[inventory/refunds.py:3]', `[${FIXTURE.functionFile}:999]`]);
      await expect(answer.getByRole('button', { name: '[inventory/refunds.py:3]' })).toHaveCount(0);
      await expect(answer.getByRole('button', { name: `[${FIXTURE.functionFile}:999]` })).toHaveCount(0);
      await screenshot(page, 'chat-answer');

      // How this answer was made: the route and the router's reply, the hits, the model calls.
      const trace = turn.getByTestId('chat-trace');
      await trace.locator('summary').first().click();
      await expect(trace.getByLabel('Router reply')).toHaveText('<think>The user names a function.</think>\n[BM25:] compute_discount');
      await expect(trace.getByRole('table', { name: 'Hits' })).toContainText(FIXTURE.functionFile);
      // Each model call of the turn, with its prompt one click away and a link to Logs.
      const routingCall = trace.locator('.chat-calls > li').filter({ hasText: /^Routing · qwen3:0\.6b/ });
      const answerCall = trace.locator('.chat-calls > li').filter({ hasText: /^Write the answer · qwen3:0\.6b/ });
      await expect(routingCall.getByRole('button', { name: /^#\d+ in Logs$/ })).toBeVisible();
      await answerCall.locator('summary').click({ position: { x: 5, y: 5 } });
      await expect(answerCall.getByLabel('Prompt')).toContainText('[Source: inventory/pricing.py:');
      await screenshot(page, 'chat-trace');

      // A citation opens a peek at its lines in Chat; from there the whole file opens.
      await answer.getByRole('button', { name: `[${FIXTURE.functionFile}:4-6]` }).click();
      await turn.getByRole('region', { name: `Peek ${FIXTURE.functionFile}:4-6` }).getByRole('button', { name: 'Open file' }).click();
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

      // A model call of the trace opens whole in the Logs page.
      await main.getByTestId('chat-trace').locator('summary').first().click();
      await main.getByTestId('chat-trace').locator('.chat-calls > li').filter({ hasText: /^Write the answer · / }).getByRole('button', { name: /^#\d+ in Logs$/ }).click();
      const logs = page.getByRole('main', { name: 'Logs' });
      await expect(logs.getByTestId('log-run')).toContainText('chat');
      await expect(logs.getByRole('region', { name: /^Call \d+$/ })).toContainText('The discount is computed by');
      // The Logs page follows the app's repository; its one picker chooses that repository's log or the app-wide one.
      await expect(logs.getByLabel('Log')).toHaveValue('repository');
      await screenshot(page, 'chat-call-in-logs');

      // In the dark theme the answer's code block is coloured with the dark token colours.
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.getByRole('button', { name: 'Chat', exact: true }).click();
      await page.reload();
      await main.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: 'Where is the discount computed?' }).click();
      await expect(main.locator('pre code[data-highlighted="python"]')).toBeVisible();
      await screenshot(page, 'chat-answer-dark');
      expect(pageErrors).toEqual([]);
    } finally {
      await served.stop();
      await server.close();
    }
  });

  test('Stop mid-stream keeps what streamed; a conversation is renamed, exported as markdown and deleted', async ({ page, pageErrors }) => {
    const server = await startModelServer();
    const served = await startServe({ OLLAMA_HOST: server.url });
    try {
      const main = await openKeywordChat(page, served.app, server.url, repo.dir);

      // A first conversation, answered in full.
      server.script.chat.push({ text: `The cart imports it [${FIXTURE.importer}:1].` });
      await main.getByLabel('Question').fill('Who uses compute_discount?');
      await main.getByRole('button', { name: 'Ask' }).click();
      await expect(main.getByTestId('chat-answer')).toHaveText(`The cart imports it [${FIXTURE.importer}:1].`);

      // A second one, stopped while the model still holds its reply.
      await main.getByRole('button', { name: 'New conversation' }).click();
      server.script.chat.push({ chunks: ['The price book ', 'keeps prices.'], holdAfterFirst: new Promise(() => {}) });
      await main.getByLabel('Question').fill('What is PriceBook?');
      await main.getByRole('button', { name: 'Ask' }).click();
      const turn = main.getByTestId('chat-turn');
      await expect(turn.getByTestId('chat-answer')).toHaveText('The price book');
      // The new conversation is listed while its answer streams.
      await expect(main.getByRole('navigation', { name: 'Conversations' })).toContainText('What is PriceBook?');
      const call = server.requests.filter((r) => r.path === '/api/chat').at(-1)!;
      await screenshot(page, 'chat-streaming');
      // Leaving the conversation while it streams and coming back shows the answer as far as it got, still stoppable.
      const conversations = main.getByRole('navigation', { name: 'Conversations' });
      await conversations.getByRole('button', { name: 'Who uses compute_discount?' }).click();
      await expect(main.getByTestId('chat-answer')).toHaveText(`The cart imports it [${FIXTURE.importer}:1].`);
      await conversations.getByRole('button', { name: 'What is PriceBook?' }).click();
      await expect(turn.getByTestId('chat-answer')).toHaveText('The price book');
      await expect(turn.getByTestId('chat-sources')).toContainText(FIXTURE.functionFile);
      await main.getByRole('button', { name: 'Stop' }).click();
      await expect(turn).toContainText('Stopped.');
      await expect(turn.getByTestId('chat-answer')).toHaveText('The price book');
      await expect.poll(() => call.aborted).toBe(true);
      await expect(main.getByRole('button', { name: 'Ask' })).toBeVisible();
      await screenshot(page, 'chat-stopped');

      // Rename the first conversation.
      const list = main.getByRole('navigation', { name: 'Conversations' });
      await expect(list.getByTestId('chat-conversation')).toHaveCount(2);
      await list.getByRole('button', { name: 'Who uses compute_discount?' }).click();
      await expect(main.getByTestId('chat-answer')).toHaveText(`The cart imports it [${FIXTURE.importer}:1].`);
      await list.getByRole('button', { name: 'Rename' }).click();
      await list.getByLabel('Conversation title').fill('Discount callers');
      await screenshot(page, 'chat-rename');
      await list.getByRole('button', { name: 'Save' }).click();
      await expect(list.getByRole('button', { name: 'Discount callers' })).toBeVisible();

      // Export it as markdown.
      const downloading = page.waitForEvent('download');
      await list.getByRole('button', { name: 'Export' }).click();
      const download = await downloading;
      expect(download.suggestedFilename()).toBe('discount-callers.md');
      const markdown = readFileSync((await download.path())!, 'utf8');
      expect(markdown).toContain('# Discount callers\n');
      expect(markdown).toContain(`## Who uses compute_discount?\n\nThe cart imports it [${FIXTURE.importer}:1].`);

      // Delete it: asked first, then gone; the stopped one stays.
      await list.getByRole('button', { name: 'Delete' }).click();
      await expect(list.getByRole('group', { name: 'Confirm delete' })).toContainText('Delete 2 messages?');
      await list.getByRole('group', { name: 'Confirm delete' }).getByRole('button', { name: 'Delete' }).click();
      await expect(list.getByTestId('chat-conversation')).toHaveCount(1);
      await expect(list).toContainText('What is PriceBook?');
      await expect(list).not.toContainText('Discount callers');
      await expect(main.getByTestId('chat-turn')).toHaveCount(0);
      await page.reload();
      await page.getByRole('button', { name: 'Chat', exact: true }).click();
      await expect(main.getByRole('navigation', { name: 'Conversations' }).getByTestId('chat-conversation')).toHaveCount(1);
      expect(pageErrors).toEqual([]);
    } finally {
      await served.stop();
      await server.close();
    }
  });
});
