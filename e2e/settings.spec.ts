import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, screenshot, test } from './fixtures/app';

test('Settings creates the config, edits a value and keeps the comments', async ({ page, app, pageErrors }) => {
  const file = join(app.dataDir, 'config.toml');
  await page.goto(`${app.url}#settings`);
  await page.getByRole('button', { name: 'Create config' }).click();
  await expect(page.getByTestId('config-path')).toHaveText(file);
  const before = readFileSync(file, 'utf8');

  await page.getByLabel('Max parts').fill('7');
  await page.getByRole('button', { name: 'Save (1)' }).click();
  await expect(page.getByText('Saved', { exact: true })).toBeVisible();
  const after = readFileSync(file, 'utf8');
  expect(after).toBe(before.replace('max_parts = 10', 'max_parts = 7'));
  await screenshot(page, 'settings-saved');

  await page.getByLabel('Reserved tokens').fill('40000');
  await page.getByRole('button', { name: 'Save (1)' }).click();
  await expect(page.getByRole('alert')).toContainText('[budget].reserved_tokens = 40000 is not allowed');
  expect(readFileSync(file, 'utf8')).toBe(after);
  await screenshot(page, 'settings-invalid');
  expect(pageErrors).toEqual([]);
});
