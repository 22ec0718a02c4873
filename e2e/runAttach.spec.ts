import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { expect, startServe, test } from './fixtures/app';
import { createFixtureRepo, FIXTURE, type FixtureRepo } from './fixtures/gitRepo';
import { addReadyRepository, openKeywordChat, useLoopbackModels } from './fixtures/pages';
import { startModelServer } from './fixtures/ollamaServer';

const TASK = `Make ${FIXTURE.classInFunctionFile}.price_of raise a clear error for an unknown item`;
const YES = { text: 'yes', logprobs: [{ token: 'yes', logprob: -0.1, top: [{ token: 'no', logprob: -2.4 }] }] };
const NO = { text: 'no', logprobs: [{ token: 'no', logprob: -0.05, top: [{ token: 'yes', logprob: -3.0 }] }] };
/** Modules importing the pricing module: tier-2 candidates scope judges (the first three kept). */
const IMPORTERS = ['shipping', 'tax', 'coupons', 'report', 'export', 'audit'];

let repo: FixtureRepo;
test.beforeEach(() => {
  repo = createFixtureRepo();
  IMPORTERS.forEach((name, i) => writeFileSync(join(repo.dir, 'inventory', `${name}.py`), `from inventory.pricing import compute_discount\n\n\ndef ${name}_amount(value: float) -> float:\n    return compute_discount(value, ${i + 1})\n`));
  execFileSync('git', ['-C', repo.dir, '-c', 'user.name=Ada Fixture', '-c', 'user.email=ada@example.invalid', 'add', '-A']);
  execFileSync('git', ['-C', repo.dir, '-c', 'user.name=Ada Fixture', '-c', 'user.email=ada@example.invalid', 'commit', '-q', '-m', 'Importers']);
});
test.afterEach(() => repo.remove());

/** The number in "N so far" of a page's judgment total. */
async function judgmentCount(main: Locator): Promise<number> {
  return Number(/^(\d+)/.exec((await main.getByTestId('judgment-total').textContent()) ?? '')?.[1]);
}

async function inspector(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: 'Context inspector', exact: true }).click();
  return page.getByRole('main', { name: 'Context inspector' });
}

test.describe('a second window attaches to a running run (cra serve, loopback model server)', () => {
  test('a page opened while a retrieve run is going shows its judgments so far, then the rest and the package, none twice', async ({ page, context, pageErrors }) => {
    test.setTimeout(120_000);
    const server = await startModelServer();
    // Scope answers at once; every precision judgment waits until the test lets it go.
    let release: () => void = () => undefined;
    const precisionMayAnswer = new Promise<void>((resolve) => (release = resolve));
    server.script.respond = (prompt) => {
      if (/^path: /m.test(prompt)) return /path: inventory\/(shipping|tax|coupons)\.py/.test(prompt) ? YES : NO;
      return { ...YES, holdUntil: precisionMayAnswer };
    };
    const served = await startServe({ OLLAMA_HOST: server.url });
    try {
      useLoopbackModels(served.app, server.url, '\n[retrieval]\nsearch_seeds = 5\n');
      await addReadyRepository(page, served.app, repo.dir);
      const first = await inspector(page);
      await first.getByLabel('Task', { exact: true }).fill(TASK);
      await first.getByRole('button', { name: 'Run', exact: true }).click();
      // Scope has ended and precision's calls are held: the run is going, its judgments so far on screen.
      await expect(first.getByTestId('stage-scope').locator('.stage-status')).toContainText('done');
      await expect(first.getByRole('button', { name: 'Cancel', exact: true })).toBeVisible();
      const soFar = await judgmentCount(first);
      expect(soFar).toBeGreaterThan(0);

      // A second window (or this one reloaded): the same run, from its log.
      const second = await context.newPage();
      await second.goto(served.app.url);
      const other = await inspector(second);
      await expect(other.getByTestId('judgment-total')).toHaveText(`${soFar} so far…`);
      await expect(other.getByLabel('Task', { exact: true })).toHaveValue(TASK);
      await expect(other.getByTestId('stage-scope').locator('.stage-status')).toContainText('done');
      await expect(other.getByRole('button', { name: 'Cancel', exact: true })).toBeVisible();
      const shownFirst = await other.getByTestId('judgment').allTextContents();
      expect(shownFirst).toEqual(await first.getByTestId('judgment').allTextContents());

      // The rest arrives live in both windows, then the package; the second counts every judgment once.
      release();
      await expect(first.getByTestId('package-file').first()).toBeVisible({ timeout: 30_000 });
      await expect(other.getByTestId('package-file').first()).toBeVisible({ timeout: 30_000 });
      const total = await judgmentCount(first);
      expect(total).toBeGreaterThan(soFar);
      await expect(other.getByTestId('judgment-total')).toHaveText(`${total} so far`);
      expect(await other.getByTestId('package-file').allTextContents()).toEqual(await first.getByTestId('package-file').allTextContents());
      expect(pageErrors).toEqual([]);
    } finally {
      release();
      await served.stop();
      await server.close();
    }
  });

  test('a page opened while a chat answer streams shows the question, the sources and the answer so far, then the rest', async ({ page, context, pageErrors }) => {
    test.setTimeout(120_000);
    const server = await startModelServer();
    let release: () => void = () => undefined;
    const rest = new Promise<void>((resolve) => (release = resolve));
    const served = await startServe({ OLLAMA_HOST: server.url });
    try {
      const main = await openKeywordChat(page, served.app, server.url, repo.dir);
      // The model streams its first words, then holds the rest until the test lets it go.
      server.script.chat.push({ chunks: ['The price book ', 'keeps the prices.'], holdAfterFirst: rest });
      await askPriceBook(main);

      // A second window opens the conversation while the answer is held: all of it so far, from the run's log.
      const second = await context.newPage();
      await second.goto(served.app.url);
      await second.getByRole('button', { name: 'Chat', exact: true }).click();
      const other = second.getByRole('main', { name: 'Chat' });
      await other.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: 'What is PriceBook?' }).click();
      const turn = other.getByTestId('chat-turn');
      await expect(turn).toContainText('What is PriceBook?');
      await expect(turn.getByTestId('chat-answer')).toHaveText('The price book');
      await expect(turn.getByTestId('chat-sources')).toContainText(FIXTURE.functionFile);
      await expect(other.getByRole('button', { name: 'Stop' })).toBeVisible();

      // Then the rest, live, in both windows; the answer is whole and once.
      release();
      await expect(main.getByTestId('chat-answer')).toHaveText('The price book keeps the prices.');
      await expect(turn.getByTestId('chat-answer')).toHaveText('The price book keeps the prices.');
      await expect(other.getByTestId('chat-turn')).toHaveCount(1);
      expect(pageErrors).toEqual([]);
    } finally {
      release();
      await served.stop();
      await server.close();
    }
  });

  test('a page whose socket drops mid-answer and comes back (no reload) fills the gap from the run\'s log, once', async ({ page, context, pageErrors }) => {
    test.setTimeout(120_000);
    // The app's sockets, and a switch that sends its reconnect attempts to a closed port while the test holds it down.
    await page.addInitScript(() => {
      const Real = window.WebSocket;
      const w = window as unknown as { __sockets: WebSocket[]; __down: boolean };
      w.__sockets = [];
      w.__down = false;
      window.WebSocket = class extends Real {
        constructor(url: string | URL, protocols?: string | string[]) {
          super(w.__down ? 'ws://127.0.0.1:1/' : url, protocols);
          w.__sockets.push(this);
        }
      };
    });
    const server = await startModelServer();
    let release: () => void = () => undefined;
    const rest = new Promise<void>((resolve) => (release = resolve));
    const served = await startServe({ OLLAMA_HOST: server.url });
    try {
      const main = await openKeywordChat(page, served.app, server.url, repo.dir);
      server.script.chat.push({ chunks: ['The price book ', 'keeps the prices.'], holdAfterFirst: rest });
      await askPriceBook(main);

      // The socket drops and stays down while the rest of the answer is streamed and the run ends.
      await page.evaluate(() => {
        const w = window as unknown as { __sockets: WebSocket[]; __down: boolean };
        w.__down = true;
        w.__sockets.at(-1)?.close();
      });
      release();
      const second = await context.newPage();
      await second.goto(served.app.url);
      await second.getByRole('button', { name: 'Chat', exact: true }).click();
      const other = second.getByRole('main', { name: 'Chat' });
      await other.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: 'What is PriceBook?' }).click();
      await expect(other.getByTestId('chat-answer')).toHaveText('The price book keeps the prices.');
      await second.close();
      await expect(main.getByTestId('chat-answer')).toHaveText('The price book');

      // Back up without a reload: the run is attached to again after the last event shown; the answer ends whole, once.
      await page.evaluate(() => ((window as unknown as { __down: boolean }).__down = false));
      await expect(main.getByTestId('chat-answer')).toHaveText('The price book keeps the prices.', { timeout: 30_000 });
      await expect(main.getByRole('button', { name: 'Stop' })).toHaveCount(0);
      await expect(main.getByTestId('chat-turn')).toHaveCount(1);
      expect(pageErrors).toEqual([]);
    } finally {
      release();
      await served.stop();
      await server.close();
    }
  });
});

/** Asks about PriceBook and waits for the first words of the held answer. */
async function askPriceBook(main: Locator): Promise<void> {
  await main.getByLabel('Question').fill('What is PriceBook?');
  await main.getByRole('button', { name: 'Ask' }).click();
  await expect(main.getByTestId('chat-answer')).toHaveText('The price book');
}
