import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, screenshot, test } from './fixtures/app';
import { LOOKS, useLook } from './fixtures/looks';

/** A folder that is not a git repository and holds 6,000 files (over the 5,000 the app asks about). */
let folder: string;
test.beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'cra-e2e-home-'));
  for (let d = 0; d < 60; d++) {
    mkdirSync(join(folder, `dir${d}`));
    for (let f = 0; f < 100; f++) writeFileSync(join(folder, `dir${d}`, `note${f}.py`), `x = ${f}\n`);
  }
});
test.afterEach(() => rmSync(folder, { recursive: true, force: true }));

test('a large folder outside git asks first with its file count; once confirmed, progress and Cancel show within a second (#26 item 10)', async ({ page, app, pageErrors }) => {
  await page.goto(app.url);
  for (const look of LOOKS) {
    const name = await useLook(page, look);
    await page.getByLabel('Repository folder path').fill(folder);
    await page.getByRole('button', { name: 'Add repository' }).click();
    const ask = page.getByRole('alertdialog', { name: 'Index a large folder?' });
    await expect(ask).toContainText('is not a git repository and holds 6,000 files');
    await expect(page.getByTestId('repo-row')).toHaveCount(0);
    await screenshot(page, `large-folder-confirm-${name}`);
    await ask.getByRole('button', { name: "Don't index" }).click();
    await expect(ask).toHaveCount(0);
    await expect(page.getByTestId('repo-row')).toHaveCount(0);
  }

  await page.getByLabel('Repository folder path').fill(folder);
  await page.getByRole('button', { name: 'Add repository' }).click();
  const clicked = Date.now();
  await page.getByRole('alertdialog', { name: 'Index a large folder?' }).getByRole('button', { name: 'Index 6,000 files' }).click();
  const progress = page.getByTestId('index-progress');
  await expect(progress.getByRole('button', { name: 'Cancel' })).toBeVisible({ timeout: 1_000 });
  expect(Date.now() - clicked).toBeLessThan(1_500);
  await screenshot(page, 'large-folder-indexing');
  await progress.getByRole('button', { name: 'Cancel' }).click();
  await expect(progress).toHaveCount(0, { timeout: 30_000 });
  expect(pageErrors).toEqual([]);
});
