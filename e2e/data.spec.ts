import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildShopRepo, SHOP_TASKS } from '../src/core/testing/bootstrapFixture';
import { expect, screenshot, startServe, test } from './fixtures/app';
import { startModelServer } from './fixtures/ollamaServer';

const ROOT = resolve(__dirname, '..');

/** Run the CLI on the served app's data folder (the same folder the page reads). */
function cra(dataDir: string, args: string[]): Promise<{ status: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'cra.js'), '--data-dir', dataDir, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('close', (status) => done({ status, output }));
  });
}

let root: string;
let shop: string;

test.beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'cra-e2e-data-'));
  shop = buildShopRepo(join(root, 'shop'));
});
test.afterAll(() => rmSync(root, { recursive: true, force: true }));

test('Data page: bootstrap a repository, see its datasets with balance, samples and export, and the log as charts', async ({ page, pageErrors }) => {
  test.setTimeout(240_000);
  const server = await startModelServer();
  // The judges: yes to the pricing module, a prose answer (a default-deny) to the report module and to TAX_RATE, no to the rest.
  server.script.respond = (prompt) => {
    if (!prompt.includes('Item:')) return undefined;
    if (prompt.includes('path: shop/pricing.py')) return { json: { answer: 'yes' } };
    if (prompt.includes('path: shop/report.py') || prompt.includes('symbol: TAX_RATE')) return { text: 'It depends on the report.' };
    return { json: { answer: 'no' } };
  };
  const served = await startServe({ OLLAMA_HOST: server.url });
  const dataDir = served.app.dataDir;
  try {
    writeFileSync(join(dataDir, 'config.toml'), `[models]\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\nbase_url = "${server.url}"\n`);
    // Something in the log: a retrieval on the shop, its judgments logged by the product.
    expect((await cra(dataDir, ['index', shop])).status).toBe(0);
    const retrieved = await cra(dataDir, ['retrieve', SHOP_TASKS.discount, '--repo', shop, '--stages', 'scope,precision', '--context-window', '32768', '--reserved-tokens', '4096']);
    expect(retrieved.status, retrieved.output).toBe(0);

    await page.goto(`${served.app.url}#training`);
    await expect(page.getByTestId('engine-status')).toHaveText(/Engine: ok/);
    await expect(page.getByRole('main', { name: 'Data' })).toBeVisible();
    await expect(page.getByText('No datasets yet.')).toBeVisible();
    // The log charts are there before any dataset: calls and default-deny rate per stage, latency per model.
    await expect(page.getByRole('img', { name: 'Calls per stage over time' })).toBeVisible();
    await expect(page.getByTestId('line-calls-scope')).toBeVisible();
    await expect(page.getByRole('img', { name: 'Default-deny rate per stage over time' })).toBeVisible();
    await expect(page.getByTestId('line-denyRate-scope')).toBeVisible();
    await expect(page.getByRole('img', { name: 'Latency per model' })).toBeVisible();
    await expect(page.getByTestId('latency-qwen3:0.6b')).toBeVisible();
    const stages = page.getByRole('table', { name: 'Stages' });
    await expect(stages.getByRole('row', { name: /^scope \d+/ })).toBeVisible();
    await screenshot(page, 'data-log');

    await page.getByLabel('Repository path').fill(shop);
    await page.getByRole('button', { name: 'Bootstrap' }).click();
    const row = page.getByTestId('dataset-row').filter({ hasText: 'bootstrap-shop' });
    await expect(row).toBeVisible({ timeout: 120_000 });
    await expect(row).toContainText('3 commits');
    await expect(row.getByRole('img', { name: 'scope balance: 5 yes, 12 no' })).toBeVisible();
    await expect(row.getByRole('img', { name: 'precision_pass1 balance: 7 yes, 5 no' })).toBeVisible();

    // The sample viewer: the dataset opens on its first stage; only the yes examples; paging.
    const view = page.getByRole('region', { name: 'Dataset bootstrap-shop' });
    await expect(view.getByRole('tab', { name: /^scope/ })).toHaveAttribute('aria-selected', 'true');
    await expect(view.getByTestId('sample-range')).toHaveText('1–5 of 17');
    await view.getByRole('button', { name: 'Next' }).click();
    await expect(view.getByTestId('sample-range')).toHaveText('6–10 of 17');
    await view.getByLabel('Label').selectOption('yes');
    await expect(view.getByTestId('sample-range')).toHaveText('1–5 of 5');
    const first = view.getByTestId('sample').first();
    await expect(first.locator('.data-message.role-assistant pre')).toHaveText('yes');
    await expect(first.locator('.data-message.role-user pre')).toContainText('Task:');
    await view.getByRole('tab', { name: /^execute/ }).click();
    await expect(view.getByTestId('sample-range')).toHaveText('1–3 of 3');
    await expect(view.getByTestId('sample').first().locator('.data-message.role-user pre')).toContainText('# Context package');
    await screenshot(page, 'data-samples');

    // Export into a new folder; the same folder again is refused.
    const dest = join(root, 'export');
    await view.getByLabel('Export folder').fill(dest);
    await view.getByRole('button', { name: 'Export' }).click();
    await expect(view.getByRole('status').filter({ hasText: 'Exported' })).toContainText(`Exported 5 files to ${dest}`);
    expect(existsSync(join(dest, 'manifest.json'))).toBe(true);
    expect(readdirSync(dest).sort()).toEqual(['execute.jsonl', 'manifest.json', 'precision_pass1.jsonl', 'precision_pass2.jsonl', 'scope.jsonl']);
    await view.getByRole('button', { name: 'Export' }).click();
    await expect(view.getByRole('alert')).toContainText('already exists; give a new folder');

    // A reload keeps it all.
    await page.reload();
    await expect(page.getByTestId('dataset-row').filter({ hasText: 'bootstrap-shop' })).toBeVisible();
    await expect(page.getByRole('img', { name: 'Calls per stage over time' })).toBeVisible();
    await screenshot(page, 'data-page');
    expect(pageErrors).toEqual([]);
  } finally {
    await served.stop();
    await server.close();
  }
});

test('Data page: a relative repository path is refused with the fix', async ({ page, app }) => {
  await page.goto(`${app.url}#training`);
  await page.getByLabel('Repository path').fill('some/relative/path');
  await page.getByRole('button', { name: 'Bootstrap' }).click();
  await expect(page.getByRole('alert')).toContainText("is a relative path; give the repository's absolute path");
});
