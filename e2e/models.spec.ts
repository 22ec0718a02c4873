import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, screenshot, startServe, test } from './fixtures/app';
import { startModelServer } from './fixtures/ollamaServer';

test.describe('Models page against the loopback model test server', () => {
  test('lists, pulls with progress, cancels and resumes, assigns and tests a model', async ({ page, pageErrors }) => {
    const server = await startModelServer();
    const served = await startServe({ OLLAMA_HOST: server.url });
    try {
      await page.goto(`${served.app.url}#models`);
      await expect(page.getByTestId('model-server-status')).toHaveText(/Ollama 0\.9\.0-test/);
      await expect(page.getByTestId('installed-qwen3:0.6b')).toContainText('Q4_K_M');
      await expect(page.getByTestId('recommended-qwen3:0.6b')).toContainText('installed');

      const row = page.getByTestId('recommended-qwen3:4b');
      await row.getByRole('button', { name: 'Pull' }).click();
      const bar = row.getByRole('progressbar', { name: 'Pulling qwen3:4b' });
      await expect(bar).toBeVisible();
      await expect.poll(async () => Number(await bar.getAttribute('aria-valuenow'))).toBeGreaterThan(15);
      await expect(row).toContainText(/GB of 2\.5 GB · .*\/s · .*left/);
      await screenshot(page, 'models-pulling');

      await row.getByRole('button', { name: 'Cancel' }).click();
      await expect(row).toContainText('Cancelled at');
      const stoppedAt = Number(await bar.getAttribute('aria-valuenow'));
      await row.getByRole('button', { name: 'Resume' }).click();
      await expect(row.getByRole('button', { name: 'Cancel' })).toBeVisible();
      // Resumed, not restarted: the bar never goes back below where it stopped.
      expect(Number(await bar.getAttribute('aria-valuenow'))).toBeGreaterThanOrEqual(stoppedAt);
      await expect(row).toContainText('installed', { timeout: 30_000 });
      await expect(page.getByTestId('installed-qwen3:4b')).toBeVisible();
      await screenshot(page, 'models-pulled');

      const scope = page.getByTestId('assign-scope');
      await scope.getByRole('combobox').selectOption('qwen3:0.6b');
      await scope.getByLabel('Context window for scope').fill('8192');
      await scope.getByLabel('Max tokens for scope').fill('16');
      await scope.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => readConfig(served.app.dataDir)).toContain('\nscope = {model = "qwen3:0.6b", context_window = 8192, max_tokens = 16}\n');
      expect(readConfig(served.app.dataDir)).toContain('# Binary decision stages — route to smallest capable model');
      await page.reload();
      await expect(page.getByTestId('assign-scope').getByRole('combobox')).toHaveValue('qwen3:0.6b');
      await screenshot(page, 'models-assigned');

      await page.getByTestId('installed-qwen3:0.6b').getByRole('button', { name: 'Test' }).click();
      await expect(page.getByTestId('test-result-qwen3:0.6b')).toContainText(/echo: Say hello.* tokens · \d+ ms/);
      expect(pageErrors).toEqual([]);
    } finally {
      await served.stop();
      await server.close();
    }
  });

  test('says what to do in one line when no model server answers', async ({ page }) => {
    const served = await startServe({ OLLAMA_HOST: 'http://127.0.0.1:9', PATH: '/usr/bin:/bin' });
    try {
      await page.goto(`${served.app.url}#models`);
      const panel = page.getByTestId('models-unavailable');
      await expect(panel).toContainText(/ollama\.com\/download|ollama serve/);
      await expect(page.getByTestId('model-server-status')).toHaveText(/not installed|not running|unreachable/);
      await expect(page.getByTestId('recommended-qwen3:4b')).toContainText(/fits in memory|tight|too large/);
      await screenshot(page, 'models-no-server');
    } finally {
      await served.stop();
    }
  });
});

function readConfig(dataDir: string): string {
  try {
    return readFileSync(join(dataDir, 'config.toml'), 'utf8');
  } catch {
    return '';
  }
}
