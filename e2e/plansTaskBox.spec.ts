import { expect, screenshot, test } from './fixtures/app';
import { createFixtureRepo, type FixtureRepo } from './fixtures/gitRepo';
import { addRepository, LOOKS, useLook } from './fixtures/looks';

let repo: FixtureRepo;
test.beforeEach(() => {
  repo = createFixtureRepo();
});
test.afterEach(() => repo.remove());

test('the plans task box spans the page, not the 260 px list column; the empty list names no terminal command (#26 items 15, 17)', async ({ page, app, pageErrors }) => {
  await page.goto(app.url);
  await addRepository(page, repo.dir);
  await page.getByRole('button', { name: 'Plans & Runs', exact: true }).click();
  const main = page.getByRole('main', { name: 'Plans & Runs' });
  const box = main.getByLabel('Task');
  for (const look of LOOKS) {
    const name = await useLook(page, look);
    const width = (await box.boundingBox())!.width;
    // At 1440 px the box was ~250 px wide; now it takes the page's width (up to 960 px).
    expect(width).toBeGreaterThanOrEqual(look.width === 1440 ? 900 : 700);
    await expect(main.getByText('No plans yet. Describe a task above and press Plan.')).toBeVisible();
    await expect(main).not.toContainText(/\bcra [a-z]/);
    await screenshot(page, `plans-task-box-${name}`);
  }
  expect(pageErrors).toEqual([]);
});
