import { expect, screenshot, test } from './fixtures/app';

const PAGES = [
  { label: 'Repositories', heading: 'Repositories', shot: 'repositories-empty' },
  { label: 'Search', heading: 'Search', shot: 'search-empty' },
  { label: 'Chat', heading: 'Chat', shot: 'chat-empty' },
  { label: 'Plans & Runs', heading: 'Plans & Runs', shot: 'plans-empty' },
  { label: 'Models', heading: 'Models', shot: 'models-empty' },
  { label: 'Logs', heading: 'Logs', shot: 'logs-empty' },
  { label: 'Settings', heading: 'Settings', shot: 'settings-empty' },
  { label: 'Evaluation', heading: 'Evaluation', shot: 'eval-empty' },
  { label: 'Context inspector', heading: 'Context inspector', shot: 'inspector-empty' },
];

test.describe('the workbench in a browser (cra serve)', () => {
  for (const [index, entry] of PAGES.entries()) {
    test(`${entry.label}: reachable from the activity bar and by Ctrl+${index + 1}`, async ({ page, app, pageErrors }) => {
      await page.goto(app.url);
      await expect(page.getByTestId('engine-status')).toHaveText(/Engine: ok/);
      await page.getByRole('button', { name: entry.label, exact: true }).click();
      await expect(page.getByRole('main', { name: entry.label })).toBeVisible();
      await expect(page.getByRole('heading', { name: entry.heading }).first()).toBeVisible();
      await screenshot(page, entry.shot);
      // Keyboard: go elsewhere, then come back with the shortcut.
      await page.getByRole('button', { name: index === 0 ? 'Logs' : 'Repositories', exact: true }).click();
      await page.keyboard.press(`Control+${index + 1}`);
      await expect(page.getByRole('main', { name: entry.label })).toBeVisible();
      expect(pageErrors).toEqual([]);
    });
  }

  test('refuses a visit without the per-launch token', async ({ page, app }) => {
    const origin = new URL(app.url).origin;
    const response = await page.goto(`${origin}/`);
    expect(response?.status()).toBe(401);
    await expect(page.locator('body')).toContainText('Unauthorized');
  });

  test('follows the system colour scheme', async ({ page, app }) => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(app.url);
    const dark = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await page.emulateMedia({ colorScheme: 'light' });
    const light = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(dark).not.toBe(light);
    expect(light).toBe('rgb(255, 255, 255)');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'repositories-dark');
  });
});
