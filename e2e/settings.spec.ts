import { readFileSync, writeFileSync } from 'node:fs';
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

test('Settings names the two context windows apart and says what each is', async ({ page, app }) => {
  await page.goto(`${app.url}#settings`);
  await page.getByRole('button', { name: 'Create config' }).click();
  await expect(page.getByLabel('Context window per model call')).toHaveValue('32768');
  await expect(page.getByLabel('Execute prompt budget')).toHaveValue('32768');
  await expect(page.getByRole('region', { name: 'Model server' })).toContainText('Tokens the server holds for each call (num_ctx)');
  await expect(page.getByRole('region', { name: 'Budget' })).toContainText("Tokens retrieval plans for when it packs code into the execute stage's prompt");
  await expect(page.getByText('Context window', { exact: true })).toHaveCount(0);
  await screenshot(page, 'settings');
});

test('Settings shows a config error with file, line and key, and refuses to save into a file that does not parse', async ({ page, app, pageErrors }) => {
  const file = join(app.dataDir, 'config.toml');
  writeFileSync(file, '[retrieval]\ntop_k = "twenty"\n');
  await page.goto(`${app.url}#settings`);
  const banner = page.getByTestId('config-error');
  await expect(banner).toContainText(`${file}:2: [retrieval].top_k = "twenty" is not allowed: must be a whole number from 1 to 200.`);
  // The form fixes a value the file holds wrongly.
  await page.getByLabel('Results (top k)').fill('30');
  await page.getByRole('button', { name: /^Save/ }).click();
  await expect(banner).toHaveCount(0);
  expect(readFileSync(file, 'utf8')).toBe('[retrieval]\ntop_k = 30\n');

  const broken = '# mine\n[models\ncoding = "qwen3:4b"\n';
  writeFileSync(file, broken);
  await page.reload();
  await expect(banner).toContainText(`${file}:2:`);
  await expect(banner).toContainText('line 2 reads `[models`');
  await screenshot(page, 'settings-config-error');
  await page.getByLabel('Max parts').fill('7');
  await page.getByRole('button', { name: /^Save/ }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Nothing was saved' })).toContainText(`Nothing was saved: ${file} does not parse`);
  expect(readFileSync(file, 'utf8')).toBe(broken);
  expect(pageErrors).toEqual([]);
});
