import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, screenshot, startServe, test } from './fixtures/app';
import { createFixtureRepo, FIXTURE, type FixtureRepo } from './fixtures/gitRepo';
import { holdEvents } from './fixtures/holdEvents';

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

  test('shows a phase without a count as a phase (no bare 0) while indexing', async ({ page, app, pageErrors }) => {
    // Hold the index run's later progress and its end, so the page stays in the references phase.
    const relay = await holdEvents(page, (e) => {
      if (e.payload.kind !== 'index') return false;
      if (e.event === 'run/finished') return true;
      return e.event === 'run/progress' && !['scanning', 'parsing', 'references'].includes(String(e.payload.phase));
    });
    await page.goto(app.url);
    await page.getByLabel('Repository folder path').fill(repo.dir);
    await page.getByRole('button', { name: 'Add repository' }).click();
    const progress = page.getByTestId('index-progress');
    await expect(progress.locator('.phase.current')).toHaveText('references');
    await expect(progress.locator('.phase.done')).toHaveText(['✓ scanning', '✓ parsing']);
    await expect(progress.getByTestId('progress-figures')).toHaveText('');
    await expect(progress.getByRole('progressbar')).toHaveClass(/indeterminate/);
    await expect(progress).toContainText('Resolving imports and references');
    await expect(page.locator('.status-jobs')).toHaveText('Index shop references…');
    await expect.poll(() => relay.held().some((e) => e.event === 'run/finished'), { timeout: 45_000 }).toBe(true);
    await screenshot(page, 'repositories-indexing');
    relay.release();
    await expect(page.getByTestId('repo-row').getByTestId('repo-status')).toHaveText('ready');
    await expect(page.getByRole('progressbar')).toHaveCount(0);
    expect(pageErrors).toEqual([]);
  });

  test('says a folder is already added and selects it, with no new index run', async ({ page, app }) => {
    await page.goto(app.url);
    await addFixture(page, repo.dir);
    await expect(page.getByTestId('last-index-run')).toContainText(`${Object.keys(repo.files).length} files parsed`);
    await page.getByLabel('Repository folder path').fill(`${repo.dir}/`);
    await page.getByRole('button', { name: 'Add repository' }).click();
    await expect(page.getByTestId('add-notice')).toHaveText(`shop is already added (${repo.dir}); it is selected below.`);
    await expect(page.getByTestId('repo-row')).toHaveCount(1);
    await expect(page.getByTestId('repo-row')).toHaveAttribute('aria-selected', 'true');
    // The figures of the real run stay; no second run was queued.
    await expect(page.getByTestId('last-index-run')).toContainText(`${Object.keys(repo.files).length} files parsed`);
    await page.locator('.status-jobs').click();
    await expect(page.getByRole('dialog', { name: 'Background jobs' }).locator('.job-row', { hasText: 'Index shop' })).toHaveCount(1);
  });

  test('refuses a relative path with a message asking for an absolute one', async ({ page, app }) => {
    await page.goto(app.url);
    await page.getByLabel('Repository folder path').fill('shop');
    await page.getByRole('button', { name: 'Add repository' }).click();
    await expect(page.getByRole('alert')).toContainText('"shop" is a relative path; give the repository\'s absolute path');
    await expect(page.getByTestId('repo-row')).toHaveCount(0);
  });

  test('notes on the row and in the details that a folder outside git has no history', async ({ page, app, pageErrors }) => {
    const plain = mkdtempSync(join(tmpdir(), 'cra-e2e-plain-'));
    try {
      mkdirSync(join(plain, 'notes'));
      writeFileSync(join(plain, 'notes', 'todo.py'), 'def remember(item: str) -> str:\n    return item\n');
      writeFileSync(join(plain, 'README.md'), '# Plain folder\n');
      await page.goto(app.url);
      await addFixture(page, plain);
      const row = page.getByTestId('repo-row');
      await expect(row.getByTestId('no-git')).toHaveText('no git history');
      await expect(page.getByTestId('no-git-note')).toContainText(`${plain} is not a git repository`);
      await expect(page.getByTestId('no-git-note')).toContainText('no co-change neighbours');
      await screenshot(page, 'repositories-no-git');
      expect(pageErrors).toEqual([]);
    } finally {
      rmSync(plain, { recursive: true, force: true });
    }
  });

  test('expands ~ to the home folder of the server', async ({ page }) => {
    const served = await startServe({ HOME: dirname(repo.dir) });
    try {
      await page.goto(served.app.url);
      await addFixture(page, `~/${basename(repo.dir)}`);
      await expect(page.getByTestId('repo-row')).toContainText(repo.dir);
      await expect(page.getByTestId('repo-row').getByTestId('no-git')).toHaveCount(0);
    } finally {
      await served.stop();
    }
  });
});
