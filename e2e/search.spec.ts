import { expect, screenshot, test } from './fixtures/app';
import { createFixtureRepo, FIXTURE, type FixtureRepo } from './fixtures/gitRepo';

let repo: FixtureRepo;
test.beforeEach(() => {
  repo = createFixtureRepo();
});
test.afterEach(() => repo.remove());

test.describe('Search (cra serve)', () => {
  test('finds a function, opens it in Monaco at its line, and shows the outline and neighbours', async ({ page, app, pageErrors }) => {
    await page.goto(app.url);
    await page.getByLabel('Repository folder path').fill(repo.dir);
    await page.getByRole('button', { name: 'Add repository' }).click();
    await expect(page.getByTestId('repo-row').getByTestId('repo-status')).toHaveText('ready', { timeout: 45_000 });

    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const box = page.getByRole('searchbox', { name: 'Search query' });
    await box.fill(FIXTURE.functionName);
    await box.press('Enter');
    const results = page.getByTestId('search-result');
    const hit = results.filter({ hasText: FIXTURE.functionFile }).first();
    await expect(hit).toBeVisible();
    await expect(results.first()).toContainText(FIXTURE.functionFile);
    await expect(hit.locator('.symbol-name', { hasText: FIXTURE.functionName })).toBeVisible();
    await expect(hit.locator('.badge').first()).toBeVisible();
    await screenshot(page, 'search-results');

    // Keyboard: the first result is selected; Enter in the box opens it.
    await expect(results.first()).toHaveAttribute('aria-selected', 'true');
    await box.press('Enter');
    const view = page.getByTestId('file-view');
    await expect(view.locator('.file-path')).toHaveText(FIXTURE.functionFile);
    const editor = view.locator('.monaco-editor');
    await expect(editor).toBeVisible();
    await expect(editor.locator('.view-lines')).toContainText(FIXTURE.functionLine);

    const outline = view.getByRole('list', { name: 'Outline' });
    await expect(outline).toContainText(FIXTURE.functionName);
    await expect(outline).toContainText(FIXTURE.classInFunctionFile);
    await expect(view.getByRole('list', { name: 'Imported by' })).toContainText(FIXTURE.importer);
    await expect(view.getByRole('list', { name: 'Recent commits' })).toContainText('Round discounts in the cart too');
    await screenshot(page, 'file-view');

    // Following an import edge opens the neighbour.
    await view.getByRole('list', { name: 'Imported by' }).getByRole('button', { name: FIXTURE.importer }).click();
    await expect(view.locator('.file-path')).toHaveText(FIXTURE.importer);
    await expect(view.getByRole('list', { name: 'Imports' })).toContainText(FIXTURE.functionFile);
    await expect(view.getByRole('list', { name: 'Outline' })).toContainText('Cart');
    expect(pageErrors).toEqual([]);
  });

  test('says so when nothing matches, and when there is no repository', async ({ page, app }) => {
    await page.goto(`${app.url}#search`);
    await expect(page.getByRole('main', { name: 'Search' })).toContainText('There is no repository yet');
    await page.getByRole('button', { name: 'Repositories', exact: true }).click();
    await page.getByLabel('Repository folder path').fill(repo.dir);
    await page.getByRole('button', { name: 'Add repository' }).click();
    await expect(page.getByTestId('repo-row').getByTestId('repo-status')).toHaveText('ready', { timeout: 45_000 });
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('searchbox', { name: 'Search query' }).fill('zzqxv nonexistentword');
    await expect(page.getByTestId('no-results')).toContainText('No results for “zzqxv nonexistentword”');
  });
});
