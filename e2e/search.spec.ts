import { expect, screenshot, test } from './fixtures/app';
import { addReadyRepository } from './fixtures/pages';
import { createFixtureRepo, FIXTURE, type FixtureRepo } from './fixtures/gitRepo';

let repo: FixtureRepo;
test.beforeEach(() => {
  repo = createFixtureRepo();
});
test.afterEach(() => repo.remove());

test.describe('Search (cra serve)', () => {
  test('finds a function, opens it in Monaco at its line, and shows the outline and neighbours', async ({ page, app, pageErrors }) => {
    await addReadyRepository(page, app, repo.dir);

    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const box = page.getByRole('searchbox', { name: 'Search query' });
    await box.fill(FIXTURE.functionName);
    await box.press('Enter');
    const results = page.getByTestId('search-result');
    const hit = results.filter({ hasText: FIXTURE.functionFile }).first();
    await expect(hit).toBeVisible();
    await expect(results.first()).toContainText(FIXTURE.functionFile);
    await expect(hit.locator('.symbol-name', { hasText: FIXTURE.functionName })).toBeVisible();
    await expect(hit.locator('.reason').first()).toBeVisible();
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

  test('dense rows: terms highlighted, open at the best line, arrow preview, a splitter that keeps the code wide', async ({ page, app, pageErrors }) => {
    await addReadyRepository(page, app, repo.dir);
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const box = page.getByRole('searchbox', { name: 'Search query' });
    // "percent off": in compute_discount (from line 4) the docstring on line 5 holds both words.
    await box.fill('percent off');
    await box.press('Enter');
    const results = page.getByTestId('search-result');
    const pricing = results.filter({ hasText: FIXTURE.functionFile });
    await expect(pricing).toHaveCount(1);
    await expect(pricing.locator('.result-snippet .line-no')).toHaveText('5');
    await expect(pricing.locator('.result-snippet mark.term-hit')).toHaveText(['percent', 'off']);
    await expect(pricing.locator('.symbol-name')).toHaveText(FIXTURE.functionName);
    await expect(pricing.locator('.result-range')).toHaveText('4–6');
    await expect(pricing.locator('.reason[data-kind="text-match"]')).toHaveText('text match');
    expect(await results.count()).toBeGreaterThan(1);
    await screenshot(page, 'search-dense-1280');

    // ↓ previews the next result in the file view without Enter.
    const view = page.getByTestId('file-view');
    await box.press('ArrowDown');
    await expect(results.nth(1)).toHaveAttribute('aria-selected', 'true');
    await expect(view.locator('.file-path')).toHaveText((await results.nth(1).locator('.result-path').getAttribute('title'))!);

    // Move to the pricing result and press Enter: it opens at line 5, the best line, not at the function's line 4.
    const target = Number(await pricing.getAttribute('data-index'));
    for (let i = 1; i < target; i++) await box.press('ArrowDown');
    for (let i = 1; i > target; i--) await box.press('ArrowUp');
    await expect(pricing).toHaveAttribute('aria-selected', 'true');
    await box.press('Enter');
    await expect(view.locator('.file-path')).toHaveText(FIXTURE.functionFile);
    const editor = view.locator('.monaco-editor');
    await expect(editor.locator('.line-numbers.active-line-number')).toHaveText('5');
    // The query terms are marked in the code too.
    await expect(editor.locator('.view-lines .term-hit').first()).toBeVisible();
    expect(await editor.locator('.view-lines .term-hit').count()).toBeGreaterThanOrEqual(4);

    // The splitter: dragging right widens the results, and the file pane never goes below its minimum.
    const list = page.getByRole('region', { name: 'Results' });
    const splitter = page.getByRole('separator', { name: 'Resize results' });
    const before = (await list.boundingBox())!.width;
    const bar = (await splitter.boundingBox())!;
    await page.mouse.move(bar.x + bar.width / 2, bar.y + 40);
    await page.mouse.down();
    await page.mouse.move(bar.x + bar.width / 2 + 120, bar.y + 40, { steps: 4 });
    await page.mouse.up();
    await expect.poll(async () => Math.round((await list.boundingBox())!.width - before)).toBe(120);
    await page.mouse.move(bar.x + 124, bar.y + 40);
    await page.mouse.down();
    await page.mouse.move(bar.x + 2000, bar.y + 40, { steps: 4 });
    await page.mouse.up();
    expect((await page.locator('.file-pane').boundingBox())!.width).toBeGreaterThanOrEqual(370);

    // At 900 px the code keeps at least 350 px (the file details move under it).
    await page.setViewportSize({ width: 900, height: 700 });
    await expect.poll(async () => (await view.locator('.file-code').boundingBox())!.width).toBeGreaterThanOrEqual(350);
    await expect(editor.locator('.line-numbers.active-line-number')).toHaveText('5');
    await screenshot(page, 'search-dense-900');
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
