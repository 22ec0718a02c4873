import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, screenshot, startServe, test } from './fixtures/app';
import { createFixtureRepo, FIXTURE, type FixtureRepo } from './fixtures/gitRepo';
import { startModelServer } from './fixtures/ollamaServer';

let repo: FixtureRepo;
test.beforeEach(() => {
  repo = createFixtureRepo();
});
test.afterEach(() => repo.remove());

/** The plan the stand-in reasoning model returns: the cart depends on the pricing change. */
const PLAN = {
  task_summary: 'Cap discounts at 50 percent',
  affected_files: [
    { path: FIXTURE.functionFile, role: 'modify', changes: [{ symbol: 'compute_discount', action: 'modify', description: 'Clamp percent to at most 50', depends_on: [], depended_by: [] }] },
    { path: FIXTURE.importer, role: 'modify', changes: [{ symbol: 'Cart.total', action: 'modify', description: 'Document the cap', depends_on: [`${FIXTURE.functionFile}:compute_discount`], depended_by: [] }] },
  ],
  execution_order: [FIXTURE.functionFile, FIXTURE.importer],
  rationale: 'The cart calls compute_discount, so the cap goes in first.',
};

test.describe('Plans & Runs (cra serve, loopback model server)', () => {
  test('a task becomes a plan; editing it is validated live; a valid edit is saved as version 2', async ({ page, pageErrors }) => {
    const server = await startModelServer();
    const served = await startServe({ OLLAMA_HOST: server.url });
    try {
      writeFileSync(join(served.app.dataDir, 'config.toml'), `[models]\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\nbase_url = "${server.url}"\n`);
      // Task analysis is answered by its prompt; the plan call takes the scripted reply.
      server.script.respond = (prompt) => (prompt.startsWith('Task:') ? { json: { intent: 'cap discounts', files: [FIXTURE.functionFile], symbols: ['compute_discount'], concepts: ['discount'] } } : undefined);
      server.script.chat.push({ json: PLAN });

      await page.goto(served.app.url);
      await page.getByLabel('Repository folder path').fill(repo.dir);
      await page.getByRole('button', { name: 'Add repository' }).click();
      await expect(page.getByTestId('repo-row').getByTestId('repo-status')).toHaveText('ready', { timeout: 45_000 });
      await page.getByRole('button', { name: 'Plans & Runs', exact: true }).click();
      const main = page.getByRole('main', { name: 'Plans & Runs' });
      await expect(main).toContainText('No plans yet');

      await main.getByLabel('Task').fill('Cap discounts at 50 percent');
      await main.getByRole('button', { name: 'Plan', exact: true }).click();
      const editor = main.getByRole('region', { name: 'Plan editor' });
      await expect(editor.getByTestId('plan-file')).toHaveCount(2);
      await expect(editor.getByTestId('plan-problems')).toHaveAttribute('data-count', '0');
      await expect(editor.getByTestId('plan-problems')).toContainText('The plan is valid');
      await expect(main.getByRole('list', { name: 'Plans' })).toContainText('v1 · 2 files');
      await expect(editor.getByTestId('edge')).toHaveCount(1);
      await screenshot(page, 'plans-editor');

      // Put the cart first: the order now goes against its dependency, said in words and drawn dashed.
      await editor.getByRole('button', { name: `Move ${FIXTURE.importer} up` }).click();
      await expect(editor.getByTestId('plan-problems')).toContainText(`execution_order puts ${FIXTURE.importer} before ${FIXTURE.functionFile}, but ${FIXTURE.importer} depends on ${FIXTURE.functionFile}`);
      await expect(editor.getByTestId('edge-backwards')).toHaveCount(1);
      await expect(editor.getByRole('button', { name: 'Save as version 2' })).toBeDisabled();
      await editor.getByRole('button', { name: `Move ${FIXTURE.importer} down` }).click();

      // A new file's empty change is a schema problem at once; once filled in, the engine flags a file the repository does not have.
      await editor.getByLabel('New file path').fill('inventory/refunds.py');
      await editor.getByRole('button', { name: 'Add file' }).click();
      await expect(editor.getByTestId('plan-problems')).toContainText('affected_files.2.changes.0.symbol: symbol must name the function');
      const added = editor.getByTestId('plan-file').nth(2);
      await added.getByLabel('Symbol').fill('refund');
      await added.getByLabel('Description').fill('Refund a cart');
      await expect(editor.getByTestId('plan-problems')).toContainText('affected_files[2] (inventory/refunds.py): the file is not in the repository');
      await added.getByLabel('Role').selectOption('create');
      await expect(editor.getByTestId('plan-problems')).toHaveAttribute('data-count', '0');
      await screenshot(page, 'plans-editor-edited');

      await editor.getByRole('button', { name: 'Save as version 2' }).click();
      await expect(editor).toContainText('version 2');
      await expect(main.getByRole('list', { name: 'Plans' }).getByRole('button')).toHaveCount(2);
      await expect(main.getByRole('list', { name: 'Plans' })).toContainText('v2 · 3 files');

      // The JSON view edits the same plan; a broken JSON is a problem, not a crash.
      await editor.getByRole('tab', { name: 'JSON' }).click();
      const json = editor.getByTestId('plan-json');
      await expect(json).toContainText('"task_summary": "Cap discounts at 50 percent"');
      await json.locator('.view-lines').click();
      await page.keyboard.press('Control+A');
      await page.keyboard.type('{ "task_summary": ');
      await expect(editor.getByTestId('plan-problems')).toContainText('JSON:');
      await expect(editor.getByRole('button', { name: 'Save as version 3' })).toBeDisabled();
      await editor.getByRole('tab', { name: 'Form' }).click();
      await expect(editor).toContainText("The JSON does not match the plan's shape yet");
      expect(pageErrors).toEqual([]);
    } finally {
      await served.stop();
      await server.close();
    }
  });
});
