import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, screenshot, SCREENSHOT_DIR, startServe, test } from './fixtures/app';
import { createFixtureRepo, FIXTURE, type FixtureRepo } from './fixtures/gitRepo';
import { LOOKS, useLook } from './fixtures/looks';
import { addReadyRepository, openChat, useLoopbackModels } from './fixtures/pages';
import { startModelServer } from './fixtures/ollamaServer';

/*
 * Chat's rough edges (issue 26, item 11): a language chosen for one conversation stays with it; a
 * wide question's many sources show the few that matter with a legend; a citation opens a peek in
 * Chat, not the Search page; Esc stops an answer and Retry asks it again.
 */

let repo: FixtureRepo;
test.beforeEach(() => {
  repo = createFixtureRepo();
  // 30 more files naming the function, so a keyword search returns many sources.
  mkdirSync(join(repo.dir, 'reports'), { recursive: true });
  for (let i = 0; i < 30; i++) {
    writeFileSync(join(repo.dir, 'reports', `report_${i}.py`), `from inventory.pricing import compute_discount\n\n\ndef report_${i}(price: float) -> float:\n    return compute_discount(price, ${i})\n`);
  }
  execFileSync('git', ['-C', repo.dir, 'add', '-A']);
  execFileSync('git', ['-C', repo.dir, '-c', 'user.name=Ada Fixture', '-c', 'user.email=ada@example.invalid', 'commit', '-qm', 'Add reports']);
});
test.afterEach(() => repo.remove());

test('Chat: language per conversation, sources behind "+N more" with a legend, a citation peek, Esc stops, Retry asks again', async ({ page, pageErrors }) => {
  test.setTimeout(180_000);
  const server = await startModelServer();
  const served = await startServe({ OLLAMA_HOST: server.url });
  try {
    useLoopbackModels(served.app, server.url);
    await addReadyRepository(page, served.app, repo.dir, 60_000);
    const main = await openChat(page);

    // (a) Polish chosen for one conversation; a new conversation detects its language again.
    await main.getByLabel('Language').selectOption('pl');
    await main.getByRole('button', { name: 'New conversation' }).click();
    await expect(main.getByLabel('Language')).toHaveValue('auto');

    await main.getByLabel('Retrieval mode').selectOption('keyword');
    server.script.chat.push({ text: `[Answer:] compute_discount [${FIXTURE.functionFile}:4-6] takes the percent off the price.` });
    await main.getByLabel('Question').fill('compute_discount');
    await main.getByRole('button', { name: 'Ask' }).click();
    const turn = main.getByTestId('chat-turn');
    await expect(turn.getByTestId('chat-answer')).toContainText('takes the percent off the price');
    const trace = turn.getByTestId('chat-trace');
    await expect(trace.locator('summary').first()).not.toContainText('translated');

    // (b) The cited sources and the best hits show; the rest behind "+N more"; a legend says what the styles mean.
    const sources = turn.getByTestId('chat-sources');
    const chips = sources.locator('.chat-chip:not(.chat-sources-legend *)');
    await trace.locator('summary').first().click();
    await expect(trace.getByRole('table', { name: 'Hits' })).toBeVisible();
    const total = await trace.getByRole('table', { name: 'Hits' }).locator('tr').count();
    await trace.locator('summary').first().click();
    expect(total).toBeGreaterThan(20);
    const more = sources.getByRole('button', { name: /^\+\d+ more$/ });
    await expect(more).toBeVisible();
    const hidden = Number((await more.textContent())?.match(/\d+/)?.[0]);
    await expect(chips).toHaveCount(total - hidden);
    expect(total - hidden).toBeLessThanOrEqual(7);
    await expect(sources.locator('.chat-chip.cited:not(.chat-sources-legend *)')).toHaveText([/^inventory\/pricing\.py:4-/]);
    await sources.getByText('What the chips mean').click();
    await expect(sources.locator('.chat-sources-legend li')).toHaveText([/search hit found by the search/, /related reached from a search hit/, /excerpt a few lines around the match/, /cited the answer cites these lines/]);
    await sources.getByText('What the chips mean').click();

    // (c) A citation opens a peek at its lines, in Chat.
    await turn.getByTestId('chat-answer').getByRole('button', { name: `[${FIXTURE.functionFile}:4-6]` }).click();
    const peek = turn.getByRole('region', { name: `Peek ${FIXTURE.functionFile}:4-6` });
    await expect(peek.locator('.chat-peek-line.cited')).toHaveCount(3);
    await expect(peek.locator('.chat-peek-line.cited').first()).toContainText(FIXTURE.functionLine);
    await expect(page.getByRole('main', { name: 'Chat' })).toBeVisible();
    for (const look of LOOKS) {
      const name = await useLook(page, look);
      await peek.scrollIntoViewIfNeeded();
      await expect(peek).toBeInViewport();
      await page.screenshot({ path: join(SCREENSHOT_DIR, `chat-peek-${name}.png`) });
    }
    await more.click();
    await expect(chips).toHaveCount(total);
    await screenshot(page, 'chat-sources-all');
    await sources.getByRole('button', { name: 'show fewer' }).click();
    await peek.getByRole('button', { name: 'Open file' }).click();
    const view = page.getByTestId('file-view');
    await expect(view.locator('.file-path')).toHaveText(FIXTURE.functionFile);
    await page.getByRole('button', { name: 'Chat', exact: true }).click();

    // (d) Esc stops an answer being written; (e) Retry asks the same question again in the conversation.
    let release = () => {};
    server.script.chat.push({ chunks: ['[Answer:] It is ', 'in pricing.'], holdAfterFirst: new Promise<void>((resolve) => (release = resolve)) });
    await main.getByLabel('Question').fill('Where is the discount computed?');
    await main.getByRole('button', { name: 'Ask' }).click();
    const second = main.getByTestId('chat-turn').nth(1);
    await expect(second.getByTestId('chat-answer')).toContainText('It is');
    await main.getByLabel('Question').press('Escape');
    await expect(second.getByText('Stopped.')).toBeVisible();
    release();
    server.script.chat.push({ text: `[Answer:] In compute_discount [${FIXTURE.functionFile}:4-6].` });
    await second.getByRole('button', { name: 'Retry' }).click();
    const third = main.getByTestId('chat-turn').nth(2);
    await expect(third.locator('.chat-question')).toHaveText('Where is the discount computed?');
    await expect(third.getByTestId('chat-answer')).toContainText('In compute_discount');
    await expect(second.getByRole('button', { name: 'Retry' })).toHaveCount(0);
    await screenshot(page, 'chat-retried');
    // The shortcut sheet says so.
    await page.locator('body').press('?');
    await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toContainText('Chat: stop the answer being written');
    expect(pageErrors).toEqual([]);
  } finally {
    await served.stop();
    await server.close();
  }
});
