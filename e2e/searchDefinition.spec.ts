import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, screenshot, test } from './fixtures/app';
import { createFixtureRepo, type FixtureRepo } from './fixtures/gitRepo';
import { addRepository, LOOKS, useLook } from './fixtures/looks';

/** A module that talks about its symbols long before it defines them, and defines a longer look-alike first. */
const DECODER = [
  '"""Decoding documents.',
  '',
  'JSONDecoder reads documents; JSONDecoder is configured with add_argument.',
  'See JSONDecoder below; add_argument adds one option, add_argument again.',
  '"""',
  '',
  '',
  'def add_arguments(parser):',
  '    """Add every option."""',
  '    parser.add_argument("--strict")',
  '',
  '',
  'class JSONDecoder:',
  '    """Reads documents."""',
  '',
  '    def add_argument(self, name):',
  '        return name',
  '',
].join('\n');
const CLASS_LINE = '13';
const METHOD_LINE = '16';

let repo: FixtureRepo;
test.beforeEach(() => {
  repo = createFixtureRepo();
  mkdirSync(join(repo.dir, 'codec'), { recursive: true });
  writeFileSync(join(repo.dir, 'codec', 'decoder.py'), DECODER);
  execFileSync('git', ['-C', repo.dir, '-c', 'user.name=Ada Fixture', '-c', 'user.email=ada@example.invalid', 'add', '-A']);
  execFileSync('git', ['-C', repo.dir, '-c', 'user.name=Ada Fixture', '-c', 'user.email=ada@example.invalid', 'commit', '-q', '-m', 'A decoder']);
});
test.afterEach(() => repo.remove());

test('search opens a symbol at its definition, not at a text match or a longer look-alike (#26 item 12)', async ({ page, app, pageErrors }) => {
  await page.goto(app.url);
  await addRepository(page, repo.dir);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  const box = page.getByRole('searchbox', { name: 'Search query' });
  const view = page.getByTestId('file-view');
  const active = view.locator('.monaco-editor .line-numbers.active-line-number');
  for (const look of LOOKS) {
    const name = await useLook(page, look);
    for (const [query, line] of [
      ['JSONDecoder', CLASS_LINE],
      ['add_argument', METHOD_LINE],
    ] as const) {
      await box.fill(query);
      await box.press('Enter');
      const hit = page.getByTestId('search-result').filter({ hasText: 'decoder.py' }).first();
      await expect(hit).toBeVisible();
      await hit.click();
      await expect(view.locator('.file-path')).toHaveText('codec/decoder.py');
      await expect(active).toHaveText(line);
      await screenshot(page, `search-definition-${query}-${name}`);
    }
  }
  expect(pageErrors).toEqual([]);
});
