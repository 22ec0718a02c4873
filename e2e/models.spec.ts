import { readFileSync, writeFileSync } from 'node:fs';
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
      await page.getByRole('button', { name: 'Save 1 change' }).click();
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

  test('offers recommended models that are not installed, saves every edited stage with one Save, and rates memory beside the assigned', async ({ page, pageErrors }) => {
    const server = await startModelServer();
    const served = await startServe({ OLLAMA_HOST: server.url });
    try {
      await page.goto(`${served.app.url}#models`);
      await expect(page.getByTestId('installed-qwen3:0.6b')).toBeVisible();
      const routing = page.getByTestId('assign-routing').getByRole('combobox');
      await expect(routing.locator('option', { hasText: 'qwen3:1.7b — recommended here, not installed' })).toHaveCount(1);
      await routing.selectOption('qwen3:1.7b');
      await page.getByTestId('assign-similarity').getByRole('combobox').selectOption('qwen3:0.6b');
      // One Save for the table, not one per row.
      await expect(page.getByRole('region', { name: 'Assignments' }).getByRole('button', { name: /^Save/ })).toHaveCount(1);
      await page.getByRole('button', { name: 'Save 2 changes' }).click();
      await expect.poll(() => readConfig(served.app.dataDir)).toContain('\nrouting = "qwen3:1.7b"\n');
      expect(readConfig(served.app.dataDir)).toContain('\nsimilarity = "qwen3:0.6b"\n');
      await expect(page.getByRole('button', { name: 'Save', exact: true })).toBeDisabled();

      await expect(page.getByTestId('memory-summary')).toContainText(/of memory, [\d.]+ [KMG]B free now/);
      // qwen2.5-coder:3b (execute) sits beside what the other stages now use.
      await expect(page.getByTestId('recommended-qwen2.5-coder:3b')).toContainText(/(fits|tight|does not fit) beside .*qwen3:1\.7b.* together\)/);
      await screenshot(page, 'models-assignments');
      expect(pageErrors).toEqual([]);
    } finally {
      await served.stop();
      await server.close();
    }
  });

  test('names the address that does not answer, and says why Pull is off', async ({ page }) => {
    const served = await startServe({ OLLAMA_HOST: 'http://127.0.0.1:9', PATH: '/usr/bin:/bin' });
    try {
      await page.goto(`${served.app.url}#models`);
      const panel = page.getByTestId('models-unavailable');
      await expect(panel).toContainText('No model server answers at http://127.0.0.1:9 (set by OLLAMA_HOST)');
      await expect(panel).not.toContainText('not installed');
      await expect(page.getByTestId('model-server-status')).toHaveText('Ollama: unreachable');
      await expect(page.getByTestId('pull-blocked')).toContainText('Pull is unavailable: no model server answers');
      await expect(page.getByTestId('recommended-qwen3:4b').getByRole('button', { name: 'Pull' })).toHaveAttribute('title', /no model server answers/);
      await expect(page.getByTestId('recommended-qwen3:4b')).toContainText(/fits alone|tight alone|too large/);
      await screenshot(page, 'models-no-server');
    } finally {
      await served.stop();
    }
  });

  test('with nothing configured and no ollama binary, says "not installed" with a link to the download page', async ({ page }) => {
    const defaultAnswers = await fetch('http://127.0.0.1:11434/api/version', { signal: AbortSignal.timeout(1000) }).then(
      () => true,
      () => false,
    );
    test.skip(defaultAnswers, 'a model server answers at the default address on this machine, so "not installed" cannot be shown');
    const served = await startServe({ OLLAMA_HOST: '', PATH: '/usr/bin:/bin' });
    try {
      await page.goto(`${served.app.url}#models`);
      const panel = page.getByTestId('models-unavailable');
      await expect(panel).toContainText('Ollama is not installed (nothing answers at http://127.0.0.1:11434)');
      await expect(panel.getByRole('link', { name: 'https://ollama.com/download' })).toHaveAttribute('href', 'https://ollama.com/download');
      await expect(page.getByTestId('pull-blocked')).toContainText('install Ollama first');
    } finally {
      await served.stop();
    }
  });

  test('a config that does not parse is named with its line, not reported as a missing Ollama', async ({ page }) => {
    const served = await startServe({ OLLAMA_HOST: '', PATH: '/usr/bin:/bin' });
    try {
      writeFileSync(join(served.app.dataDir, 'config.toml'), '# mine\n[models\ncoding = "qwen3:4b"\n');
      await page.goto(`${served.app.url}#models`);
      const panel = page.getByTestId('models-unavailable');
      await expect(panel).toContainText('The config file has an error');
      await expect(panel).toContainText(`${join(served.app.dataDir, 'config.toml')}:2:`);
      await expect(page.getByTestId('model-server-status')).toHaveText('Model server: config error');
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
