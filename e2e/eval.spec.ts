import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildFixtureRepo, FIXTURE_MISS } from '../src/core/testing/fixtureRepo';
import { expect, screenshot, test } from './fixtures/app';
import { holdEvents } from './fixtures/holdEvents';

let root: string;
let repo: string;

test.beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'cra-e2e-eval-'));
  repo = buildFixtureRepo(join(root, 'repo'));
});
test.afterAll(() => rmSync(root, { recursive: true, force: true }));

test.describe('Evaluation page', () => {
  test('starts an evaluation on a repository and shows its chart, table and misses', async ({ page, app, pageErrors }) => {
    // The run's end is held back until the running state has been looked at (it lasts a second or two).
    const relay = await holdEvents(page, (e) => e.event === 'run/finished' && e.payload.kind === 'eval');
    await page.goto(`${app.url}#eval`);
    await expect(page.getByTestId('engine-status')).toHaveText(/Engine: ok/);
    await expect(page.getByRole('main', { name: 'Evaluation' })).toBeVisible();
    // Empty state: how to run one.
    await expect(page.getByRole('heading', { name: 'Evaluation' })).toBeVisible();
    await expect(page.getByText(/press Start: it replays past commits as tasks/)).toBeVisible();
    // #26 item 15: no terminal command where the page itself can do it.
    await expect(page.getByRole('main', { name: 'Evaluation' })).not.toContainText(/\bcra [a-z]/);
    await screenshot(page, 'eval-empty');

    await page.getByLabel('Repository path').fill(repo);
    await page.getByLabel('Commits').fill('40');
    await page.getByRole('button', { name: 'Start' }).click();

    // While it runs, the page shows what runs (not the form's defaults), also after going away and back.
    const running = page.getByRole('region', { name: 'Running evaluation' });
    await expect(running.getByTestId('eval-running-what')).toHaveText(`${repo} · 40 commits`);
    await expect(page.getByRole('button', { name: 'Start' })).toHaveCount(0);
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('button', { name: 'Evaluation', exact: true }).click();
    await expect(running.getByTestId('eval-running-what')).toHaveText(`${repo} · 40 commits`);
    await expect(page.getByLabel('Commits')).toHaveCount(0);
    await expect.poll(() => relay.held().length, { timeout: 60_000 }).toBe(1);
    await screenshot(page, 'eval-running');
    // The run ends while another page is shown: its report is there on coming back.
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    relay.release();
    await expect(page.getByRole('button', { name: 'No background jobs' })).toBeVisible({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Evaluation', exact: true }).click();

    const chart = page.getByRole('img', { name: 'recall at k per method' });
    await expect(chart).toBeVisible({ timeout: 60_000 });
    await expect(page.getByTestId('bar-search-5')).toBeVisible();
    await expect(page.getByTestId('bar-bm25-5')).toBeVisible();
    await expect(page.getByTestId('bar-search-source-5')).toBeVisible();
    await expect(page.getByTestId('bar-bm25-source-5')).toBeVisible();
    const summary = page.getByRole('table', { name: 'Summary' });
    for (const method of ['search', 'search-source', 'bm25', 'bm25-source']) {
      await expect(summary.getByRole('row', { name: new RegExp(`^${method} \\d`) })).toBeVisible();
    }
    // Which reference the search beats, at R@5 and R@10, against both references.
    const verdicts = page.getByRole('list', { name: 'Against the references' });
    await expect(verdicts.getByRole('listitem').filter({ hasText: /^search (beats|does not beat) bm25-source( at R@(5|10))? \(R@5 [\d.]+ vs [\d.]+, R@10 [\d.]+ vs [\d.]+\)$/ })).toBeVisible();
    // The fixture's task that shares no word with any file is a miss, with its gold file unranked.
    const misses = page.getByRole('list', { name: 'Misses of search' });
    const miss = misses.getByRole('listitem').filter({ hasText: FIXTURE_MISS });
    await expect(miss).toBeVisible();
    await expect(miss).toContainText('src/app/logging_setup.py (not ranked)');
    // The form is back once the run ended.
    await expect(page.getByLabel('Commits')).toBeVisible();

    // The per-task table: every task, the rank of each gold file by search and by BM25, our top results.
    const tasks = page.getByRole('table', { name: 'Tasks' });
    const rows = tasks.getByTestId('eval-task');
    const all = await rows.count();
    expect(all).toBeGreaterThan(1);
    const missRow = rows.filter({ hasText: FIXTURE_MISS });
    await expect(missRow).toContainText('src/app/logging_setup.py');
    await expect(missRow.getByTestId('rank-ours')).toHaveText('–');
    // A task search found: its gold file has a rank by search and is marked in the top results.
    const found = rows.filter({ hasText: 'Handle a missing Content-Length header' });
    await expect(found.getByTestId('rank-ours').first()).toHaveText(/^#\d+$/);
    await expect(found.getByTestId('rank-reference').first()).toHaveText(/^(#\d+|–)$/);
    await expect(found.locator('.eval-top li.gold').first()).toBeVisible();
    await page.getByLabel(/Only misses of search/).check();
    await expect(rows.filter({ hasText: FIXTURE_MISS })).toHaveCount(1);
    await expect(rows.filter({ hasText: 'Handle a missing Content-Length header' })).toHaveCount(0);
    expect(await rows.count()).toBeLessThan(all);
    await page.getByLabel(/Only misses of search/).uncheck();
    await expect(rows).toHaveCount(all);
    // The table folds away.
    await page.locator('.eval-tasks > summary').click();
    await expect(tasks).toBeHidden();
    await page.locator('.eval-tasks > summary').click();

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

  test('refuses a relative path in the page and names no CLI flag the page lacks', async ({ page, app }) => {
    await page.goto(`${app.url}#eval`);
    await page.getByLabel('Repository path').fill('some/relative/path');
    await page.getByRole('button', { name: 'Start' }).click();
    await expect(page.getByRole('alert')).toContainText("is a relative path; give the repository's absolute path");
    await expect(page.getByRole('alert')).not.toContainText('--');
  });
});
