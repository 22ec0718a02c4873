import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, screenshot, startServe, test } from './fixtures/app';
import { addReadyRepository } from './fixtures/pages';
import { createFixtureRepo, FIXTURE, type FixtureRepo } from './fixtures/gitRepo';
import { isJudgment, startModelServer, YES } from './fixtures/ollamaServer';

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
      server.script.respond = (prompt) => (isJudgment(prompt) ? YES : prompt.startsWith('Task:') ? { json: { intent: 'cap discounts', files: [FIXTURE.functionFile], symbols: ['compute_discount'], concepts: ['discount'] } } : undefined);
      server.script.chat.push({ json: PLAN });

      await addReadyRepository(page, served.app, repo.dir);
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
      expect(server.bugs).toEqual([]);
    } finally {
      await served.stop();
      await server.close();
    }
  });

  test('a plan runs in a worktree of ours, its progress tree shows the pass, and only the accepted hunk reaches the working tree', async ({ page, pageErrors }) => {
    const server = await startModelServer();
    const served = await startServe({ OLLAMA_HOST: server.url });
    try {
      writeFileSync(join(served.app.dataDir, 'config.toml'), `[models]\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\nbase_url = "${server.url}"\n`);
      const pricing = repo.files[FIXTURE.functionFile]!;
      // The coding model's edit: two hunks in pricing.py, far enough apart to be reviewed one by one.
      const edit = [
        `${FIXTURE.functionFile}`,
        '```python',
        '<<<<<<< SEARCH',
        '    return round(price * (1 - percent / 100), 2)',
        '=======',
        '    percent = min(percent, 50)',
        '    return round(price * (1 - percent / 100), 2)',
        '>>>>>>> REPLACE',
        '```',
        `${FIXTURE.functionFile}`,
        '```python',
        '<<<<<<< SEARCH',
        '        return self.prices[name]',
        '=======',
        '        return self.prices.get(name, 0.0)',
        '>>>>>>> REPLACE',
        '```',
      ].join('\n');
      server.script.respond = (prompt) => {
        if (isJudgment(prompt)) return YES;
        if (prompt.startsWith('Task:')) return { json: { intent: 'cap discounts', files: [FIXTURE.functionFile], symbols: ['compute_discount'], concepts: ['discount'] } };
        if (/^## Pass: implement/.test(prompt)) return { text: edit };
        return undefined;
      };
      server.script.chat.push({ json: { ...PLAN, affected_files: [PLAN.affected_files[0]], execution_order: [FIXTURE.functionFile] } });

      await addReadyRepository(page, served.app, repo.dir);
      await page.getByRole('button', { name: 'Plans & Runs', exact: true }).click();
      const main = page.getByRole('main', { name: 'Plans & Runs' });
      await main.getByLabel('Task').fill('Cap discounts at 50 percent');
      await main.getByRole('button', { name: 'Plan', exact: true }).click();
      const editor = main.getByRole('region', { name: 'Plan editor' });
      await expect(editor.getByTestId('plan-problems')).toHaveAttribute('data-count', '0');
      // Edit the plan, save it as version 2, and run that version.
      await expect(editor.getByRole('button', { name: 'Run', exact: true })).toBeEnabled();
      await editor.getByTestId('plan-file').first().getByLabel('Description').fill('Clamp percent to at most 50, then discount');
      await expect(editor.getByRole('button', { name: 'Run', exact: true })).toBeDisabled(); // unsaved edits are not run
      await expect(editor.getByTestId('plan-problems')).toHaveAttribute('data-count', '0');
      await editor.getByRole('button', { name: 'Save as version 2' }).click();
      await expect(editor).toContainText('version 2');
      await editor.getByRole('button', { name: 'Run', exact: true }).click();

      const run = main.getByRole('region', { name: 'Solve run' });
      await expect(run.getByTestId('run-status')).toHaveText('complete', { timeout: 45_000 });
      await expect(run.getByTestId('run-outcome')).toContainText(`files: ${FIXTURE.functionFile}`);
      const implement = run.getByTestId('tree-node').filter({ hasText: 'implement' }).first();
      await expect(implement).toHaveAttribute('data-status', 'done');
      await implement.click();
      await expect(run.getByTestId('pass-detail')).toContainText('Validation (syntax): passed');
      // The implement prompt named the edited plan; the pass's context package opens in the Context inspector.
      const implementPrompt = server.requests.map((r) => JSON.stringify(r.body ?? null)).find((b) => b.includes('## Pass: implement'));
      expect(implementPrompt).toContain('Clamp percent to at most 50, then discount');
      await expect(run.getByTestId('pass-context')).toContainText(FIXTURE.functionFile);
      await run.getByTestId('pass-context').getByRole('button', { name: 'Open in Context inspector' }).click();
      const inspector = page.getByRole('main', { name: 'Context inspector' });
      await expect(inspector.getByRole('region', { name: 'Context package' })).toContainText(FIXTURE.functionFile);
      await page.getByRole('button', { name: 'Plans & Runs', exact: true }).click();
      await screenshot(page, 'plans-run-tree');
      // The pass's model calls open in Logs (the repository's log, filtered to the pass's run).
      await run.getByTestId('pass-detail').getByRole('button', { name: 'Model calls' }).click();
      const logs = page.getByRole('main', { name: 'Logs' });
      await expect(logs.getByRole('row').filter({ hasText: 'execute' }).first()).toBeVisible();
      await page.getByRole('button', { name: 'Plans & Runs', exact: true }).click();
      // The run worked in a worktree of ours: the user's tree is untouched until they apply.
      expect(readFileSync(join(repo.dir, FIXTURE.functionFile), 'utf8')).toBe(pricing);

      await run.getByRole('tab', { name: 'Review changes' }).click();
      const review = run.getByRole('region', { name: 'Diff review' });
      await expect(review.getByTestId('review-hunk')).toHaveCount(2);
      await review.getByRole('group', { name: `Hunk 2 of ${FIXTURE.functionFile}` }).getByRole('button', { name: 'Reject' }).click();
      await expect(review.getByTestId('review-summary')).toHaveText(`Apply writes 1 of 2 hunks to 1 file: ${FIXTURE.functionFile}.`);
      await screenshot(page, 'plans-review');
      await review.getByRole('button', { name: 'Apply to working tree' }).click();
      await expect(review.getByRole('status')).toHaveText(`Applied 1 hunk to ${FIXTURE.functionFile}.`);
      const applied = readFileSync(join(repo.dir, FIXTURE.functionFile), 'utf8');
      expect(applied).toBe(pricing.replace('    return round(price * (1 - percent / 100), 2)', '    percent = min(percent, 50)\n    return round(price * (1 - percent / 100), 2)'));

      await review.getByRole('button', { name: 'Undo last apply' }).click();
      await expect(review.getByRole('status')).toHaveText(`Undone: ${FIXTURE.functionFile} restored.`);
      expect(readFileSync(join(repo.dir, FIXTURE.functionFile), 'utf8')).toBe(pricing);
      expect(pageErrors).toEqual([]);
      expect(server.bugs).toEqual([]);
    } finally {
      await served.stop();
      await server.close();
    }
  });
});
