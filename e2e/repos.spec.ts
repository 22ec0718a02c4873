import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, screenshot, test } from './fixtures/app';
import { createFixtureRepo, FIXTURE, type FixtureRepo } from './fixtures/gitRepo';

let repo: FixtureRepo;
test.beforeEach(() => {
  repo = createFixtureRepo();
});
test.afterEach(() => repo.remove());

/** Add the fixture repository through the browser's path field and wait for its first index to finish. */
async function addFixture(page: Page, path: string): Promise<void> {
  await page.getByLabel('Repository folder path').fill(path);
  await page.getByRole('button', { name: 'Add repository' }).click();
  const row = page.getByTestId('repo-row');
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId('repo-status')).toHaveText('ready', { timeout: 45_000 });
  await expect(page.getByRole('progressbar')).toHaveCount(0);
}

test.describe('Repositories (cra serve)', () => {
  test('adds a repository by path, indexes it with progress, shows its counts and skipped files', async ({ page, app, pageErrors }) => {
    await page.goto(app.url);
    await expect(page.getByRole('heading', { name: 'Repositories' })).toBeVisible();
    await addFixture(page, repo.dir);

    const row = page.getByTestId('repo-row');
    await expect(row).toContainText('shop');
    await expect(row).toContainText(repo.dir);
    await expect(row.getByTestId('repo-files')).toHaveText(String(Object.keys(repo.files).length));
    await expect(row.getByTestId('repo-symbols')).not.toHaveText('0');
    await expect(row.locator('.chip', { hasText: 'python' })).toBeVisible();
    await expect(row.locator('.chip', { hasText: 'typescript' })).toBeVisible();
    await expect(row).toContainText('just now');
    // The top bar shows the new current repository and its index state.
    await expect(page.getByLabel('Current repository')).toHaveValue(/^shop-/);
    await expect(page.getByTestId('repo-bar-state')).toContainText(`${Object.keys(repo.files).length} files`);
    await expect(page.getByTestId('repo-bar-state')).toContainText('indexed just now');

    await page.locator('.skipped summary').click();
    await expect(page.locator('.skipped')).toContainText(/Every file was indexed|Skipped files \(\d+\)/);
    await screenshot(page, 'repositories-indexed');
    expect(pageErrors).toEqual([]);
  });

  test('shows the engine error inline for a path that does not exist', async ({ page, app }) => {
    await page.goto(app.url);
    const missing = join(repo.dir, 'no-such-folder');
    await page.getByLabel('Repository folder path').fill(missing);
    await page.getByRole('button', { name: 'Add repository' }).click();
    await expect(page.getByRole('alert')).toContainText(`No folder at ${missing}`);
    await expect(page.getByTestId('repo-row')).toHaveCount(0);
    await screenshot(page, 'repositories-bad-path');
  });

  test('re-indexes, toggles the watcher and removes with a confirmation that leaves the files alone', async ({ page, app }) => {
    await page.goto(app.url);
    await addFixture(page, repo.dir);
    const row = page.getByTestId('repo-row');

    await row.getByRole('button', { name: 'Re-index' }).click();
    await expect(row.getByTestId('repo-status')).toHaveText('ready', { timeout: 45_000 });
    // Both index runs are listed as done in the status bar's job list.
    await page.locator('.status-jobs').click();
    await expect(page.getByRole('dialog', { name: 'Background jobs' }).locator('.job-row', { hasText: 'Index shop' })).toHaveCount(2);
    await expect(page.getByRole('dialog', { name: 'Background jobs' }).locator('.job-row', { hasText: 'Index shop' }).filter({ hasText: 'done' })).toHaveCount(2);
    await page.locator('.status-jobs').click();

    const watch = row.getByRole('checkbox', { name: 'Watch' });
    const wasWatching = await watch.isChecked();
    await watch.click();
    await expect(watch).toBeChecked({ checked: !wasWatching });

    await row.getByRole('button', { name: 'Remove' }).click();
    const confirm = page.getByRole('alertdialog');
    await expect(confirm).toContainText('Only our index of it is deleted');
    await expect(confirm).toContainText(repo.dir);
    await screenshot(page, 'repositories-remove-confirm');
    await confirm.getByRole('button', { name: 'Remove index' }).click();
    await expect(page.getByTestId('repo-row')).toHaveCount(0);
    await expect(page.getByLabel('Repository folder path')).toBeVisible();
    // Our state is gone; the repository's files are not.
    for (const [path, text] of Object.entries(repo.files)) {
      expect(existsSync(join(repo.dir, path)), path).toBe(true);
      expect(readFileSync(join(repo.dir, path), 'utf8')).toBe(text);
    }
    expect(readFileSync(join(repo.dir, FIXTURE.functionFile), 'utf8')).toContain(FIXTURE.functionLine);
  });
});
