import { test as base } from '@playwright/test';
import { expect, screenshot, startServe, type ServedApp } from './fixtures/app';
import { createFixtureRepo, FIXTURE, type FixtureRepo } from './fixtures/gitRepo';

/** A served app whose embeddings switch is the config's (off by default), whatever the shell exported. */
const test = base.extend<{ app: ServedApp; pageErrors: string[] }>({
  app: async ({}, use) => {
    const served = await startServe({ CRA_EMBEDDINGS: '' });
    await use(served.app);
    await served.stop();
  },
  pageErrors: async ({ page }, use) => {
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await use(errors);
    expect(errors, 'uncaught errors in the page').toEqual([]);
  },
});

let repo: FixtureRepo;
test.beforeEach(() => {
  repo = createFixtureRepo();
});
test.afterEach(() => repo.remove());

test.describe('Vectors (cra serve)', () => {
  test('shows vector coverage, notes a hybrid search that fell back to keyword, and Embed now fills the gap', async ({ page, app, pageErrors }) => {
    await page.goto(app.url);
    await page.getByLabel('Repository folder path').fill(repo.dir);
    await page.getByRole('button', { name: 'Add repository' }).click();
    const row = page.getByTestId('repo-row');
    await expect(row.getByTestId('repo-status')).toHaveText('ready', { timeout: 45_000 });

    // Embedding after each index is off by default: no vectors, and the row says so.
    const coverage = row.getByTestId('vector-coverage');
    await expect(coverage.getByTestId('vector-coverage-figures')).toHaveText(/^vectors: 0 of \d+ chunks \(0%\)$/);
    await expect(coverage).toHaveAttribute('title', /Embedding after each index is off/);
    const embedNow = coverage.getByRole('button', { name: 'Embed now' });
    await expect(embedNow).toBeEnabled();
    await screenshot(page, 'vectors-coverage-none');

    // Hybrid without vectors is keyword search, and the results say so.
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByLabel('Search mode').selectOption('hybrid');
    const box = page.getByRole('searchbox', { name: 'Search query' });
    await box.fill('take a percentage off the price');
    await box.press('Enter');
    const note = page.getByTestId('search-note');
    await expect(note).toContainText('No vectors for this repository yet, so this is keyword search, not hybrid.');
    await expect(page.locator('.results-meta')).toContainText('· keyword ·');
    await expect(page.getByTestId('search-result').first()).toContainText(FIXTURE.functionFile);
    await screenshot(page, 'vectors-search-note');

    // Embed now: the row shows the run, then full coverage and no button.
    await page.getByRole('button', { name: 'Repositories', exact: true }).click();
    await row.getByTestId('vector-coverage').getByRole('button', { name: 'Embed now' }).click();
    await expect(row.getByTestId('vector-coverage-figures')).toHaveText(/^vectors: all \d+ chunks$/, { timeout: 45_000 });
    await expect(row.getByTestId('vector-coverage').getByRole('button', { name: 'Embed now' })).toHaveCount(0);
    await screenshot(page, 'vectors-coverage-full');

    // Now hybrid is hybrid, with nothing to note.
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await box.fill('take a percentage off the price ');
    await box.press('Enter');
    await expect(page.locator('.results-meta')).toContainText('· hybrid ·');
    await expect(page.getByTestId('search-note')).toHaveCount(0);
    expect(pageErrors).toEqual([]);
  });
});
