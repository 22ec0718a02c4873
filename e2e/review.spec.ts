import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { contrastOf, DIFF_PARTS } from './fixtures/contrast';
import { expect, screenshot, startServe, test } from './fixtures/app';
import { addReadyRepository } from './fixtures/pages';
import { createFixtureRepo, FIXTURE, type FixtureRepo } from './fixtures/gitRepo';
import { isJudgment, startModelServer, YES } from './fixtures/ollamaServer';

let repo: FixtureRepo;
test.beforeEach(() => {
  repo = createFixtureRepo();
});
test.afterEach(() => repo.remove());

const TASK = 'Cap discounts at 50 percent';
/** The plan: one file; the model's summary differs from the task as the user wrote it. */
const PLAN = {
  task_summary: 'Limit the discount percentage',
  affected_files: [{ path: FIXTURE.functionFile, role: 'modify', changes: [{ symbol: 'compute_discount', action: 'modify', description: 'Clamp percent to at most 50', depends_on: [], depended_by: [] }] }],
  execution_order: [FIXTURE.functionFile],
  rationale: 'One function computes every discount.',
};
/** The coding model's edit: two hunks of pricing.py, far enough apart to be reviewed one by one. */
const EDIT = [
  FIXTURE.functionFile,
  '```python',
  '<<<<<<< SEARCH',
  '    return round(price * (1 - percent / 100), 2)',
  '=======',
  '    percent = min(percent, 50)  # never more than half off, whatever the caller asks for',
  '    return round(price * (1 - percent / 100), 2)',
  '>>>>>>> REPLACE',
  '```',
  FIXTURE.functionFile,
  '```python',
  '<<<<<<< SEARCH',
  '        return self.prices[name]',
  '=======',
  '        return self.prices.get(name, 0.0)',
  '>>>>>>> REPLACE',
  '```',
].join('\n');

const SIZES = [
  { width: 1440, height: 900 },
  { width: 1000, height: 700 },
] as const;
const SCHEMES = ['light', 'dark'] as const;

/** Every diff part meets WCAG AA (4.5:1) in both schemes. */
async function expectReadableDiff(page: Page, where: string): Promise<void> {
  for (const colorScheme of SCHEMES) {
    await page.emulateMedia({ colorScheme });
    const ratios = await contrastOf(page, DIFF_PARTS);
    for (const [part, ratio] of Object.entries(ratios)) {
      expect(ratio, `${where}, ${colorScheme}: ${part} contrast`).not.toBeNull();
      expect(ratio!, `${where}, ${colorScheme}: ${part} contrast`).toBeGreaterThanOrEqual(4.5);
    }
  }
}

/** No hunk is hidden under the Apply footer: scrolled into view, the point just above its bottom edge is the hunk's own. */
async function expectFooterClearOfHunks(review: Locator): Promise<void> {
  const hunks = review.getByTestId('review-hunk');
  for (let i = 0; i < (await hunks.count()); i++) {
    const hunk = hunks.nth(i);
    await hunk.scrollIntoViewIfNeeded();
    const covered = await hunk.evaluate((element) => {
      const box = element.getBoundingClientRect();
      const bottom = Math.min(box.bottom, window.innerHeight) - 4;
      const top = document.elementFromPoint(box.left + box.width / 2, bottom);
      return top && !element.contains(top) ? (top.closest('footer')?.className ?? top.className) : null;
    });
    expect(covered, `hunk ${i + 1} is covered by`).toBeNull();
  }
}

/** Characters of code one diff line shows (its code column's width over the width of one character). */
async function charsPerLine(review: Locator): Promise<number> {
  return review.locator('.d2h-code-line-ctn').first().evaluate((span) => {
    const cell = span.closest('td') as HTMLElement;
    const probe = document.createElement('span');
    probe.textContent = 'x'.repeat(100);
    probe.style.font = getComputedStyle(span).font;
    probe.style.whiteSpace = 'pre';
    document.body.append(probe);
    const width = probe.getBoundingClientRect().width / 100;
    probe.remove();
    const gutter = cell.querySelector('.d2h-code-linenumber, .d2h-code-side-linenumber') as HTMLElement | null;
    return Math.floor((cell.clientWidth - (gutter?.offsetWidth ?? 0)) / width);
  });
}

test.describe('diff review and runs (cra serve, loopback model server)', () => {
  test('a failed run says what happened and runs again; review is readable at both sizes and schemes; apply shows what it wrote and applies the rest later', async ({ page, pageErrors }) => {
    test.setTimeout(180_000);
    const server = await startModelServer();
    const served = await startServe({ OLLAMA_HOST: server.url });
    try {
      writeFileSync(join(served.app.dataDir, 'config.toml'), `[models]\nreasoning = "qwen3:0.6b"\ncoding = "qwen3:0.6b"\nbase_url = "${server.url}"\n`);
      const pricing = repo.files[FIXTURE.functionFile]!;
      let broken = true;
      server.script.respond = (prompt) => {
        if (isJudgment(prompt)) return YES;
        if (prompt.startsWith('Task:')) return { json: { intent: 'cap discounts', files: [FIXTURE.functionFile], symbols: ['compute_discount'], concepts: ['discount'] } };
        if (/^## Pass: implement/.test(prompt)) return { text: broken ? 'I would clamp the percent in compute_discount.' : EDIT };
        return undefined;
      };
      server.script.chat.push({ json: PLAN });
      // Every alert the page ever shows, however briefly.
      await page.addInitScript(() => {
        const seen: string[] = [];
        (window as unknown as { alertsSeen: string[] }).alertsSeen = seen;
        new MutationObserver(() => {
          for (const alert of document.querySelectorAll('[role=alert]')) if (alert.textContent && !seen.includes(alert.textContent)) seen.push(alert.textContent);
        }).observe(document, { subtree: true, childList: true, characterData: true });
      });

      await page.setViewportSize(SIZES[0]);
      await addReadyRepository(page, served.app, repo.dir);
      await page.getByRole('button', { name: 'Plans & Runs', exact: true }).click();
      const main = page.getByRole('main', { name: 'Plans & Runs' });
      await main.getByLabel('Task').fill(TASK);
      await main.getByRole('button', { name: 'Plan', exact: true }).click();
      const editor = main.getByRole('region', { name: 'Plan editor' });
      await expect(editor.getByTestId('plan-problems')).toHaveAttribute('data-count', '0');
      await editor.getByTestId('plan-file').first().getByLabel('Description').fill('Clamp percent to at most 50, then discount');
      await editor.getByRole('button', { name: 'Save as version 2' }).click();
      await expect(editor).toContainText('version 2');

      // The plan list: one entry titled with the task as written, its two versions under it.
      const plans = main.getByRole('list', { name: 'Plans' });
      await expect(plans.getByTestId('plan-group')).toHaveCount(1);
      await expect(plans.getByTestId('plan-group').locator('.plan-list-title')).toHaveText(TASK);
      await expect(plans.getByRole('button')).toHaveCount(2);
      await expect(plans).not.toContainText(PLAN.task_summary);

      // A failed run: what happened and what to try, the parser's words only behind Details.
      await editor.getByRole('button', { name: 'Run', exact: true }).click();
      const run = main.getByRole('region', { name: 'Solve run' });
      await expect(run.getByTestId('run-status')).toHaveText('failed', { timeout: 45_000 });
      const failure = run.getByTestId('run-failure');
      await expect(failure.locator('.failure-what')).toHaveText("The coding model's reply had no edit the app could apply.");
      await expect(failure.getByText(/Run it again/)).toBeVisible();
      await expect(failure.getByText(/<<<<<<< SEARCH/)).toBeHidden();
      await failure.getByText('Details').click();
      await expect(failure.getByText(/<<<<<<< SEARCH/)).toBeVisible();
      await expect(failure.getByRole('button', { name: 'Edit the plan' })).toBeVisible();
      for (const colorScheme of SCHEMES) {
        await page.emulateMedia({ colorScheme });
        await screenshot(page, `review-failed-run-${colorScheme}`);
      }

      // Run again: the same plan, now answered with an edit.
      broken = false;
      await failure.getByRole('button', { name: 'Run again' }).click();
      await expect(run.getByTestId('run-status')).toHaveText('complete', { timeout: 45_000 });
      expect(await page.evaluate(() => (window as unknown as { alertsSeen: string[] }).alertsSeen)).toEqual([]);

      // The step's own diff (progress tree) is readable in both schemes.
      await run.getByTestId('tree-node').filter({ hasText: 'implement' }).first().click();
      await expect(run.getByTestId('pass-detail').getByTestId('diff-view')).toBeVisible();
      await expectReadableDiff(page, 'step diff');

      await run.getByRole('tab', { name: 'Review changes' }).click();
      const review = run.getByRole('region', { name: 'Diff review' });
      await expect(review.getByTestId('review-hunk')).toHaveCount(2);
      for (const size of SIZES) {
        await page.setViewportSize(size);
        // Side by side only where each side has room; line by line below that.
        await expect(review.locator('.d2h-file-side-diff')).toHaveCount(size.width >= 1440 ? 4 : 0); // two sides per hunk
        expect(await charsPerLine(review), `characters per diff line at ${size.width}×${size.height}`).toBeGreaterThanOrEqual(60);
        await expectFooterClearOfHunks(review);
        await expectReadableDiff(page, `review at ${size.width}×${size.height}`);
        for (const colorScheme of SCHEMES) {
          await page.emulateMedia({ colorScheme });
          await screenshot(page, `review-${size.width}-${colorScheme}`);
        }
      }

      // Reject the second hunk and apply: the review then shows what the working tree holds.
      await review.getByRole('group', { name: `Hunk 2 of ${FIXTURE.functionFile}` }).getByRole('button', { name: 'Reject' }).click();
      await expect(review.getByTestId('review-summary')).toHaveText(`Apply writes 1 of 2 hunks to 1 file: ${FIXTURE.functionFile}.`);
      await review.getByRole('button', { name: 'Apply to working tree' }).click();
      const notice = review.getByRole('status');
      await expect(notice).toHaveText(`Applied 1 hunk to ${FIXTURE.functionFile}.`);
      await expect(notice).toBeInViewport({ ratio: 1 });
      expect(await notice.evaluate((e) => e.scrollWidth <= e.clientWidth && e.scrollHeight <= e.clientHeight)).toBe(true);
      expect(Number.parseFloat(await notice.evaluate((e) => getComputedStyle(e).fontSize))).toBeGreaterThanOrEqual(13);
      const hunks = review.getByTestId('review-hunk');
      await expect(hunks.nth(0)).toHaveAttribute('data-verdict', 'applied');
      await expect(hunks.nth(1)).toHaveAttribute('data-verdict', 'reject');
      await expect(review.getByTestId('review-summary')).toHaveText(`1 hunk of 2 applied (${FIXTURE.functionFile}). Accept a rejected hunk to apply it too, or undo the apply.`);
      await expect(review.getByRole('button', { name: 'Apply to working tree' })).toBeDisabled();
      // The run view's tabs keep their height after an apply.
      for (const tab of ['Progress', 'Review changes']) expect((await run.getByRole('tab', { name: tab }).boundingBox())!.height).toBeGreaterThanOrEqual(18);
      for (const colorScheme of SCHEMES) {
        await page.emulateMedia({ colorScheme });
        await screenshot(page, `review-applied-${colorScheme}`);
      }
      const capped = pricing.replace('    return round(price * (1 - percent / 100), 2)', '    percent = min(percent, 50)  # never more than half off, whatever the caller asks for\n    return round(price * (1 - percent / 100), 2)');
      expect(readFileSync(join(repo.dir, FIXTURE.functionFile), 'utf8')).toBe(capped);

      // Changing one's mind: accept the second hunk and apply it too (our own first apply is no conflict).
      await review.getByRole('group', { name: `Hunk 2 of ${FIXTURE.functionFile}` }).getByRole('button', { name: 'Accept' }).click();
      await expect(review.getByTestId('review-summary')).toHaveText(`1 hunk of 2 applied (${FIXTURE.functionFile}). Apply writes 1 hunk more to 1 file: ${FIXTURE.functionFile}.`);
      await review.getByRole('button', { name: 'Apply to working tree' }).click();
      await expect(notice).toHaveText(`Applied 1 hunk to ${FIXTURE.functionFile}.`);
      await expect(hunks.nth(1)).toHaveAttribute('data-verdict', 'applied');
      expect(readFileSync(join(repo.dir, FIXTURE.functionFile), 'utf8')).toBe(capped.replace('        return self.prices[name]', '        return self.prices.get(name, 0.0)'));

      // A reload shows the same: both hunks applied, nothing left to apply.
      await page.reload();
      await run.getByRole('tab', { name: 'Review changes' }).click();
      await expect(hunks).toHaveCount(2);
      await expect(hunks.nth(0)).toHaveAttribute('data-verdict', 'applied');
      await expect(hunks.nth(1)).toHaveAttribute('data-verdict', 'applied');
      await expect(review.getByRole('button', { name: 'Apply to working tree' })).toBeDisabled();
      expect(pageErrors).toEqual([]);
      expect(server.bugs).toEqual([]);
    } finally {
      await served.stop();
      await server.close();
    }
  });
});
