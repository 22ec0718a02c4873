import { SCREENSHOT_DIR, expect, test } from './fixtures/app';
import { LOOKS, useLook } from './fixtures/looks';
import { join } from 'node:path';

test('Settings keeps an unsaved edit when you go to Logs and back; Logs has one picker for the log', async ({ page, app, pageErrors }) => {
  await page.goto(`${app.url}#settings`);
  await page.getByRole('button', { name: 'Create config' }).click();
  await page.getByLabel('Max parts').fill('7');
  await page.getByRole('button', { name: 'Logs', exact: true }).click();
  const logs = page.getByRole('main', { name: 'Logs' });
  await expect(logs.getByRole('combobox')).toHaveCount(1);
  await expect(logs.getByLabel('Log').locator('option')).toHaveText(['app-wide (model tests, downloads)']);
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await expect(page.getByLabel('Max parts')).toHaveValue('7');
  await expect(page.getByRole('status')).toContainText('1 unsaved change: Max parts.');
  await expect(page.getByRole('button', { name: 'Save (1)' })).toBeEnabled();
  for (const look of LOOKS) {
    const name = await useLook(page, look);
    await page.screenshot({ path: join(SCREENSHOT_DIR, `settings-unsaved-${name}.png`) });
  }
  await page.getByRole('button', { name: 'Discard' }).click();
  await expect(page.getByLabel('Max parts')).toHaveValue('10');
  await expect(page.getByRole('status')).toHaveCount(0);
  expect(pageErrors).toEqual([]);
});
