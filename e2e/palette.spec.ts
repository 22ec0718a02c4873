import { expect, screenshot, test } from './fixtures/app';
import { createFixtureRepo, type FixtureRepo } from './fixtures/gitRepo';
import { addRepository, LOOKS, useLook } from './fixtures/looks';

let repo: FixtureRepo;
test.beforeEach(() => {
  repo = createFixtureRepo();
});
test.afterEach(() => repo.remove());

test('Ctrl+K opens a palette of pages, repositories, runs and actions; ? lists the shortcuts; G then a letter switches pages, Ctrl+digit does not (#26 item 13)', async ({ page, app, pageErrors }) => {
  await page.goto(app.url);
  await addRepository(page, repo.dir);
  const main = page.getByRole('main');
  for (const look of LOOKS) {
    const name = await useLook(page, look);
    await page.getByRole('button', { name: 'Repositories', exact: true }).click();
    // Ctrl+digit belongs to the browser's tabs: the app leaves it alone.
    await page.keyboard.press('Control+3');
    await expect(main).toHaveAttribute('aria-label', 'Repositories');

    await page.keyboard.press('Control+k');
    const palette = page.getByRole('dialog', { name: 'Command palette' });
    await expect(palette).toBeVisible();
    for (const group of ['Pages', 'Repositories', 'Recent runs', 'Actions']) await expect(palette.locator('.palette-group', { hasText: group }).first()).toBeVisible();
    await expect(palette.getByRole('option', { name: /Index shop/ }).first()).toBeVisible();
    await expect(palette.getByRole('option', { name: /Chat.*G then C/ })).toBeVisible();
    await screenshot(page, `palette-${name}`);
    await palette.getByRole('combobox').fill('chat');
    await expect(palette.getByRole('option').first()).toContainText('Chat');
    await palette.getByRole('combobox').press('Enter');
    await expect(palette).toHaveCount(0);
    await expect(main).toHaveAttribute('aria-label', 'Chat');

    // Actions: "Add repository" goes to the page and puts the cursor in the path field.
    await page.keyboard.press('Control+k');
    await palette.getByRole('combobox').fill('add repo');
    await palette.getByRole('combobox').press('Enter');
    await expect(main).toHaveAttribute('aria-label', 'Repositories');
    await expect(page.getByLabel('Repository folder path')).toBeFocused();
    await page.getByLabel('Repository folder path').blur();

    await page.keyboard.press('g');
    await page.keyboard.press('s');
    await expect(main).toHaveAttribute('aria-label', 'Search');
    // In a text field, letters are typing.
    const box = page.getByRole('searchbox', { name: 'Search query' });
    await box.click();
    await page.keyboard.type('gc');
    await expect(main).toHaveAttribute('aria-label', 'Search');
    await expect(box).toHaveValue('gc');
    await box.fill('');
    await box.blur();

    await page.keyboard.press('?');
    const sheet = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await expect(sheet).toContainText('Ctrl+K');
    await expect(sheet).toContainText('G then P');
    await expect(sheet).not.toContainText('Ctrl+10');
    await screenshot(page, `shortcuts-${name}`);
    await page.keyboard.press('Escape');
    await expect(sheet).toHaveCount(0);
  }
  // The activity bar's tooltips name the new keys.
  await expect(page.getByRole('button', { name: 'Data', exact: true })).toHaveAttribute('title', 'Data (G then D)');
  expect(pageErrors).toEqual([]);
});
