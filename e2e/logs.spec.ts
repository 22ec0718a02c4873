import { expect, screenshot, startServe, test } from './fixtures/app';
import { startModelServer } from './fixtures/ollamaServer';

test('a completion appears in the Logs page with tokens and latency, and opens whole', async ({ page, pageErrors }) => {
  const server = await startModelServer();
  server.script.chat.push({ text: 'Hello from the test model!', promptTokens: 17, completionTokens: 6 });
  const served = await startServe({ OLLAMA_HOST: server.url });
  try {
    await page.goto(`${served.app.url}#models`);
    await page.getByTestId('installed-qwen3:0.6b').getByRole('button', { name: 'Test' }).click();
    await expect(page.getByTestId('test-result-qwen3:0.6b')).toContainText('Hello from the test model!');

    await page.getByRole('button', { name: 'Logs', exact: true }).click();
    const table = page.getByRole('table', { name: 'Model calls' });
    const row = table.getByRole('row').nth(1);
    await expect(row).toContainText('qwen3:0.6b');
    await expect(row).toContainText('17 / 6');
    await expect(row).toContainText(/\d+ ms/);
    await row.click();
    const detail = page.getByRole('region', { name: /Call \d+/ });
    await expect(detail).toContainText('Say hello in five words.');
    await expect(detail).toContainText('Hello from the test model!');
    await expect(detail).toContainText('"num_ctx"');
    await screenshot(page, 'logs-call');

    await page.getByLabel('errors only').check();
    await expect(page.getByRole('heading', { name: 'No calls match' })).toBeVisible();
    expect(pageErrors).toEqual([]);
  } finally {
    await served.stop();
    await server.close();
  }
});
