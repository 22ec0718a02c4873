import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { startGgufServer, type GgufServer } from '../src/core/testing/ggufServer';
import { realGgufPath } from '../src/core/testing/realGguf';
import { expect, screenshot, startServe, test } from './fixtures/app';
import { createFixtureRepo, type FixtureRepo } from './fixtures/gitRepo';

/**
 * A machine without Ollama (a closed port, no `ollama` binary) gets from "no models" to working
 * built-in models in one click: the curated models are downloaded from a loopback Hugging Face
 * mirror ($HF_ENDPOINT) serving the real GGUF (stories260K: mechanics only, never its words).
 */
let repo: FixtureRepo;
let mirror: GgufServer;
test.beforeEach(async () => {
  repo = createFixtureRepo();
  mirror = await startGgufServer(readFileSync(realGgufPath()));
});
test.afterEach(async () => {
  repo.remove();
  await mirror.close();
});

/** The user config as written so far ('' before the first write). */
const configText = (dataDir: string) => (existsSync(join(dataDir, 'config.toml')) ? readFileSync(join(dataDir, 'config.toml'), 'utf8') : '');

const noOllama = () => ({ HF_ENDPOINT: mirror.url.replace(/\/model\.gguf$/, ''), OLLAMA_HOST: 'http://127.0.0.1:9', CRA_LLAMA_THREADS: '1' });

async function addRepo(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.getByLabel('Repository folder path').fill(repo.dir);
  await page.getByRole('button', { name: 'Add repository' }).click();
  await expect(page.getByTestId('repo-row').getByTestId('repo-status')).toHaveText('ready', { timeout: 45_000 });
}

/** Screenshots at both sizes in both themes (looked at by people). */
async function shots(page: Page, name: string): Promise<void> {
  for (const [w, h] of [
    [1440, 900],
    [1000, 700],
  ] as const) {
    for (const scheme of ['light', 'dark'] as const) {
      await page.setViewportSize({ width: w, height: h });
      await page.emulateMedia({ colorScheme: scheme });
      await screenshot(page, `${name}-${w}x${h}-${scheme}`);
    }
  }
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.emulateMedia({ colorScheme: 'light' });
}

test.describe('One-step model setup without Ollama (built-in runtime, loopback mirror)', () => {
  test('Chat offers "Set up models" instead of failing; one click downloads and assigns the built-in models, and an answer streams from one', async ({ page, pageErrors }) => {
    test.setTimeout(240_000);
    const served = await startServe(noOllama());
    try {
      await page.setViewportSize({ width: 1440, height: 900 });
      await addRepo(page, served.app.url);
      await page.getByRole('button', { name: 'Chat', exact: true }).click();
      const main = page.getByRole('main', { name: 'Chat' });
      const setup = main.getByTestId('setup-models');
      await expect(setup).toContainText('No models yet');
      await expect(setup).toContainText('No Ollama here: the models run inside the app');
      await expect(setup).toContainText('qwen3-4b-q4_k_m');
      await main.getByLabel('Question').fill('Where is the discount computed?');
      await expect(main.getByRole('button', { name: 'Ask' })).toBeDisabled();
      await shots(page, 'setup-chat-no-models');

      await setup.getByRole('button', { name: 'Set up models' }).click();
      await expect(setup).toBeHidden({ timeout: 120_000 });
      const config = readFileSync(join(served.app.dataDir, 'config.toml'), 'utf8');
      expect(config).toContain('\nprovider = "builtin"\n');
      await expect(main.getByTestId('chat-models')).toContainText('answers: qwen3-4b-q4_k_m');

      await main.getByRole('button', { name: 'Ask' }).click();
      const answer = main.getByTestId('chat-turn').getByTestId('chat-answer');
      // Streamed by the built-in runtime from the downloaded file: text arrives, then the turn ends.
      await expect(answer).not.toHaveText('', { timeout: 120_000 });
      await expect(main.getByRole('button', { name: 'Ask' })).toBeVisible({ timeout: 120_000 });
      await expect(main.getByTestId('chat-turn')).not.toContainText('The answer failed');
      await shots(page, 'setup-chat-answered');
      expect(pageErrors).toEqual([]);
    } finally {
      await served.stop();
    }
  });

  test('Models page: Use recommended fills every stage, pickers list only models that can do the stage, deleting an assigned model warns, and the check fills the figures', async ({ page, pageErrors }) => {
    test.setTimeout(240_000);
    const served = await startServe(noOllama());
    try {
      await page.setViewportSize({ width: 1440, height: 900 });
      await addRepo(page, served.app.url);
      await page.goto(`${served.app.url}#models`);
      const setup = page.getByTestId('setup-models');
      await expect(setup).toContainText('No models yet');
      await shots(page, 'setup-models-page-first-run');

      // Use recommended: every stage drafted with the proposal, written by one Save.
      await page.getByRole('button', { name: 'Use recommended' }).click();
      await expect(page.getByTestId('assign-scope').getByRole('combobox')).toHaveValue('qwen3-0.6b-q4_k_m');
      await page.getByRole('button', { name: 'Save 12 changes' }).click();
      await expect.poll(() => configText(served.app.dataDir)).toContain('scope = {model = "qwen3-0.6b-q4_k_m", context_window = 2048}');
      // Assigned but not on disk yet: the setup downloads them.
      await setup.getByRole('button', { name: 'Set up models' }).click();
      await expect(setup).toBeHidden({ timeout: 120_000 });
      await expect(page.getByTestId('installed-qwen3-4b-q4_k_m')).toBeVisible();

      const options = (stage: string) => page.getByTestId(`assign-${stage}`).getByRole('combobox').locator('option');
      await expect(options('embedding')).toHaveText(['embedding default (nomic-embed-text-v1.5-q4_k_m)', 'nomic-embed-text-v1.5-q4_k_m']);
      const chatValues = await options('chat').evaluateAll((els) => els.map((e) => (e as HTMLOptionElement).value));
      expect(chatValues.sort()).toEqual(['', 'qwen2.5-coder-3b-q4_k_m', 'qwen3-0.6b-q4_k_m', 'qwen3-1.7b-q4_k_m', 'qwen3-4b-q4_k_m']);

      const row = page.getByTestId('installed-qwen3-4b-q4_k_m');
      await row.getByRole('button', { name: 'Delete' }).click();
      await expect(page.getByTestId('delete-warning-qwen3-4b-q4_k_m')).toHaveText(/qwen3-4b-q4_k_m is assigned to plan, chat: after deleting it those stages have no working model/);
      await shots(page, 'setup-models-delete-warning');
      await row.getByRole('button', { name: 'Keep' }).click();

      await page.getByRole('button', { name: 'Check on this repository' }).click();
      await expect(page.getByTestId('check-scope')).not.toBeEmpty({ timeout: 120_000 });
      await expect(page.getByTestId('check-precision')).not.toBeEmpty();
      await expect(page.getByTestId('check-plan')).toContainText(/valid plans of \d+ tasks|no qualifying commits/);
      await shots(page, 'setup-models-checked');
      expect(pageErrors).toEqual([]);
    } finally {
      await served.stop();
    }
  });
});
