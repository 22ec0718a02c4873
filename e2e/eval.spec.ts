import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildFixtureRepo, FIXTURE_MISS } from '../src/core/eval/fixtureRepo';
import { expect, screenshot, test } from './fixtures/app';

let root: string;
let repo: string;

test.beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'cra-e2e-eval-'));
  repo = buildFixtureRepo(join(root, 'repo'));
});
test.afterAll(() => rmSync(root, { recursive: true, force: true }));

test.describe('Evaluation page', () => {
  test('starts an evaluation on a repository and shows its chart, table and misses', async ({ page, app, pageErrors }) => {
    await page.goto(`${app.url}#eval`);
    await expect(page.getByTestId('engine-status')).toHaveText(/Engine: ok/);
    await expect(page.getByRole('main', { name: 'Evaluation' })).toBeVisible();
    // Empty state: how to run one.
    await expect(page.getByRole('heading', { name: 'Evaluation' })).toBeVisible();
    await expect(page.getByText('cra eval <repo>')).toBeVisible();
    await screenshot(page, 'eval-empty');

    await page.getByLabel('Repository path').fill(repo);
    await page.getByRole('button', { name: 'Start' }).click();

    const chart = page.getByRole('img', { name: 'recall at k per method' });
    await expect(chart).toBeVisible({ timeout: 60_000 });
    await expect(page.getByTestId('bar-search-5')).toBeVisible();
    await expect(page.getByTestId('bar-bm25-5')).toBeVisible();
    const summary = page.getByRole('table', { name: 'Summary' });
    await expect(summary.getByRole('row', { name: /^search/ })).toBeVisible();
    await expect(summary.getByRole('row', { name: /^bm25/ })).toBeVisible();
    // The fixture's task that shares no word with any file is a miss, with its gold file unranked.
    const misses = page.getByRole('list', { name: 'Misses of search' });
    const miss = misses.getByRole('listitem').filter({ hasText: FIXTURE_MISS });
    await expect(miss).toBeVisible();
    await expect(miss).toContainText('src/app/logging_setup.py (not ranked)');
    // The report is listed and survives a reload.
    await expect(page.getByRole('table', { name: 'Reports' }).getByRole('row')).toHaveCount(2);
    await screenshot(page, 'eval-report');
    await page.reload();
    await expect(page.getByRole('img', { name: 'recall at k per method' })).toBeVisible();
    expect(pageErrors).toEqual([]);
  });

  test('shows why a start fails', async ({ page, app }) => {
    await page.goto(`${app.url}#eval`);
    await page.getByLabel('Repository path').fill(join(root, 'missing'));
    await page.getByRole('button', { name: 'Start' }).click();
    await expect(page.getByRole('alert')).toContainText('No folder at');
  });
});
