import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, screenshot, startServe, test } from './fixtures/app';
import { addReadyRepository } from './fixtures/pages';
import { createFixtureRepo, FIXTURE, type FixtureRepo } from './fixtures/gitRepo';
import { isJudgment, startModelServer, YES } from './fixtures/ollamaServer';

let repo: FixtureRepo;
test.beforeEach(() => {
  repo = createFixtureRepo();
});
test.afterEach(() => repo.remove());

const planFor = (summary: string) => ({
  task_summary: summary,
  affected_files: [{ path: FIXTURE.functionFile, role: 'modify', changes: [{ symbol: 'compute_discount', action: 'modify', description: summary, depends_on: [], depended_by: [] }] }],
  execution_order: [FIXTURE.functionFile],
  rationale: 'One function.',
});

/** The page shown and, on Plans & Runs, the plan marked current. */
async function where(page: Page): Promise<string> {
  const main = page.getByRole('main');
  const label = await main.getAttribute('aria-label');
  if (label !== 'Plans & Runs') return label ?? '(none)';
  const current = page.getByRole('list', { name: 'Plans' }).locator('.plan-group').filter({ has: page.locator('[aria-current="true"]') }).locator('.plan-list-title');
  return `${label}: ${await current.textContent()}`;
}

for (const size of [
  { width: 1440, height: 900, colorScheme: 'light' as const },
  { width: 1000, height: 700, colorScheme: 'dark' as const },
]) {
  test(`Back and Forward move between pages and plans inside the app; a reload keeps the place (${size.width}×${size.height}, ${size.colorScheme})`, async ({ page, pageErrors }) => {
    test.setTimeout(120_000);
    const server = await startModelServer();
    const served = await startServe({ OLLAMA_HOST: server.url });
    try {
      writeFileSync(join(served.app.dataDir, 'config.toml'), `[models]\nreasoning = "qwen3:0.6b"\nbase_url = "${server.url}"\n`);
      server.script.respond = (prompt) => (isJudgment(prompt) ? YES : prompt.startsWith('Task:') ? { json: { intent: 'discounts', files: [FIXTURE.functionFile], symbols: ['compute_discount'], concepts: ['discount'] } } : undefined);
      server.script.chat.push({ json: planFor('Cap discounts') }, { json: planFor('Round prices') });
      await page.setViewportSize(size);
      await page.emulateMedia({ colorScheme: size.colorScheme });
      await addReadyRepository(page, served.app, repo.dir);

      await page.getByRole('button', { name: 'Plans & Runs', exact: true }).click();
      const main = page.getByRole('main', { name: 'Plans & Runs' });
      for (const task of ['Cap discounts at 50 percent', 'Round prices to cents']) {
        await main.getByLabel('Task').fill(task);
        await main.getByRole('button', { name: 'Plan', exact: true }).click();
        await expect(main.getByTestId('plan-group')).toHaveCount(task.startsWith('Cap') ? 1 : 2);
      }
      await expect.poll(() => where(page)).toBe('Plans & Runs: Round prices to cents');

      // Pages and plans the user visits, one history entry each.
      await page.getByRole('button', { name: 'Repositories', exact: true }).click();
      await page.getByRole('button', { name: 'Plans & Runs', exact: true }).click();
      await main.getByTestId('plan-group').filter({ hasText: 'Cap discounts at 50 percent' }).getByRole('button').click();
      await expect.poll(() => where(page)).toBe('Plans & Runs: Cap discounts at 50 percent');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await expect.poll(() => where(page)).toBe('Search');
      expect(new URL(page.url()).hash).toMatch(/^#search\?repo=/);

      const back = async (expected: string) => {
        await page.goBack();
        await expect.poll(() => where(page)).toBe(expected);
      };
      const forward = async (expected: string) => {
        await page.goForward();
        await expect.poll(() => where(page)).toBe(expected);
      };
      await back('Plans & Runs: Cap discounts at 50 percent');
      await back('Plans & Runs: Round prices to cents');
      await back('Repositories');
      await forward('Plans & Runs: Round prices to cents');
      await forward('Plans & Runs: Cap discounts at 50 percent');
      await screenshot(page, `history-plans-${size.width}-${size.colorScheme}`);

      // A reload comes back to the same page and plan, and the history still works after it.
      expect(new URL(page.url()).hash).toMatch(/^#plans\?repo=[^&]+&plan=/);
      await page.reload();
      await expect.poll(() => where(page)).toBe('Plans & Runs: Cap discounts at 50 percent');
      await back('Plans & Runs: Round prices to cents');
      await forward('Plans & Runs: Cap discounts at 50 percent');
      await forward('Search');

      // Back, as far as the app's own entries go, never shows a blank page.
      for (let i = 0; i < 4; i++) {
        await page.goBack();
        await expect(page.getByRole('navigation', { name: 'Pages' })).toBeVisible();
        expect(new URL(page.url()).origin).toBe(new URL(served.app.url).origin);
      }
      expect(pageErrors).toEqual([]);
      expect(server.bugs).toEqual([]);
    } finally {
      await served.stop();
      await server.close();
    }
  });
}
