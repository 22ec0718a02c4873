import { expect, screenshot, test } from './fixtures/app';

/** Each page, and its keyboard shortcut: G, then a letter (no Ctrl+digit: those switch browser tabs). */
const PAGES = [
  { label: 'Repositories', heading: 'Repositories', shot: 'repositories-empty', key: 'r' },
  { label: 'Search', heading: 'Search', shot: 'search-empty', key: 's' },
  { label: 'Chat', heading: 'Chat', shot: 'chat-empty', key: 'c' },
  { label: 'Plans & Runs', heading: 'Plans & Runs', shot: 'plans-empty', key: 'p' },
  { label: 'Models', heading: 'Models', shot: 'models-empty', key: 'm' },
  { label: 'Logs', heading: 'Logs', shot: 'logs-empty', key: 'l' },
  { label: 'Settings', heading: 'Settings', shot: 'settings-empty', key: ',' },
  { label: 'Evaluation', heading: 'Evaluation', shot: 'eval-empty', key: 'e' },
  { label: 'Context inspector', heading: 'Context inspector', shot: 'inspector-empty', key: 'i' },
];

test.describe('the workbench in a browser (cra serve)', () => {
  for (const [index, entry] of PAGES.entries()) {
    test(`${entry.label}: reachable from the activity bar and by G then ${entry.key.toUpperCase()}`, async ({ page, app, pageErrors }) => {
      await page.goto(app.url);
      await expect(page.getByTestId('engine-status')).toHaveText(/Engine: ok/);
      await page.getByRole('button', { name: entry.label, exact: true }).click();
      await expect(page.getByRole('main', { name: entry.label })).toBeVisible();
      await expect(page.getByRole('heading', { name: entry.heading }).first()).toBeVisible();
      await screenshot(page, entry.shot);
      // Keyboard: go elsewhere, then come back with the shortcut.
      await page.getByRole('button', { name: index === 0 ? 'Logs' : 'Repositories', exact: true }).click();
      await page.keyboard.press('g');
      await page.keyboard.press(entry.key);
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
