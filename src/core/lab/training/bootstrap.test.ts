import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureRepo } from '../../testing/fixtureRepo';
import { runGitSync } from '../../platform/git';
import { createTestRepo } from '../../testing/gitRepo';
import { passHeader, SOLVE_SYSTEM } from '../../features/plans/solvePasses';
import { CHAT_USER, fillTemplate } from '../../features/retrieval/judgePrompts';
import { PRECISION_QUESTIONS } from '../../features/retrieval/stages/precision';
import { SCOPE_QUESTION } from '../../features/retrieval/stages/scope';
import { bootstrapDataset, namesImportedByName } from './bootstrap';
import { chatLineSchema, DATASET_STAGES, type ChatExample, type DatasetManifest } from './dataset';
import { buildShopRepo, SHOP_TASKS } from '../../testing/bootstrapFixture';

let base: string;
let repo: string;
let shop: string;
const lines = (dir: string, stage: string): ChatExample[] =>
  readFileSync(join(dir, `${stage}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as ChatExample);
const manifest = (dir: string) => JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as DatasetManifest;
const shaOf = (subject: string, cwd = repo) => runGitSync(['log', '--format=%H', '--fixed-strings', `--grep=${subject}`, '-n', '1'], { cwd }).trim();

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'cra-bootstrap-'));
  repo = buildFixtureRepo(join(base, 'repo'));
  shop = buildShopRepo(join(base, 'shop'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('cra bootstrap on a history with known labels', () => {
  it('labels the changed files and their needed neighbours yes, the other candidates no; touched symbols primary, used ones supporting', async () => {
    const out = join(base, 'shop-out');
    const summary = await bootstrapDataset({ repoPath: shop, dataDir: join(base, 'data'), out });
    // 3 of the 6 commits qualify: the root, a typo fix and a release are set aside.
    expect(summary).toMatchObject({ mined: 3, added: 3, considered: 6, skippedByRule: { root: 1, typo: 1, version: 1 } });
    const of = (stage: string, subject: string) => lines(out, stage).filter((x) => x.meta.commit === shaOf(subject, shop)).map((x) => [x.meta.subject, x.meta.label]);
    // validate.py uses MAX_NAME, defined by models.py which it imports: models.py is needed.
    expect(of('scope', SHOP_TASKS.limit).sort()).toEqual([
      ['shop/models.py', 'yes'],
      ['shop/orders.py', 'no'],
      ['shop/pricing.py', 'no'],
      ['shop/validate.py', 'yes'],
      ['tests/test_orders.py', 'no'],
    ]);
    // orders.py calls discount() and with_tax() of pricing.py (needed); it imports models.py too, but the diff uses none of its names.
    expect(of('scope', SHOP_TASKS.discount).sort()).toEqual([
      ['shop/models.py', 'no'],
      ['shop/orders.py', 'yes'],
      ['shop/pricing.py', 'yes'],
      ['shop/report.py', 'no'],
      ['shop/validate.py', 'no'],
      ['tests/test_orders.py', 'no'],
    ]);
    // report.py imports nothing: only the changed file is yes.
    expect(of('scope', SHOP_TASKS.report).filter(([, label]) => label === 'yes')).toEqual([['shop/report.py', 'yes']]);
    // Each label says why: the changed file, a needed neighbour, or another candidate.
    expect(lines(out, 'scope').filter((x) => x.meta.commit === shaOf(SHOP_TASKS.limit, shop) && x.meta.label === 'yes').map((x) => [x.meta.subject, x.meta.reason])).toEqual([
      ['shop/models.py', 'needed-neighbour'],
      ['shop/validate.py', 'changed'],
    ]);
    expect(new Set(lines(out, 'scope').filter((x) => x.meta.label === 'no').map((x) => x.meta.reason))).toEqual(new Set(['other-candidate']));

    // Pass 1 (relevant?): the touched symbols and the neighbour's used names yes. MAX_NAME is named in the task, so (as in the stage) it skips pass 1.
    // (in the stage's candidate order, which ranks a file's symbols by the task's words: compared sorted)
    expect(of('precision_pass1', SHOP_TASKS.limit).sort()).toEqual([
      ['shop/models.py:Customer', 'no'],
      ['shop/models.py:Customer.__init__', 'no'],
      ['shop/models.py:make_customer', 'no'],
      ['shop/validate.py:clean_name', 'yes'],
      ['shop/validate.py:new_customer', 'no'],
    ]);
    // Pass 2 (directly involved?): asked of the relevant ones; yes for the touched symbols only.
    expect(of('precision_pass2', SHOP_TASKS.limit)).toEqual([
      ['shop/models.py:MAX_NAME', 'no'],
      ['shop/validate.py:clean_name', 'yes'],
    ]);
    expect(of('precision_pass1', SHOP_TASKS.discount).sort()).toEqual([
      ['shop/orders.py:Order', 'yes'],
      ['shop/orders.py:Order.__init__', 'yes'],
      ['shop/orders.py:Order.total', 'yes'],
      ['shop/pricing.py:TAX_RATE', 'no'],
      ['shop/pricing.py:discount', 'yes'],
      ['shop/pricing.py:with_tax', 'yes'],
    ]);
    expect(of('precision_pass2', SHOP_TASKS.discount).filter(([, l]) => l === 'no').sort()).toEqual([
      ['shop/pricing.py:discount', 'no'],
      ['shop/pricing.py:with_tax', 'no'],
    ]);

    // The prompts are the pipeline's own: the judge's system prompt with the stage's question, the item as the stage describes it.
    const pass1 = lines(out, 'precision_pass1').find((x) => x.meta.subject === 'shop/validate.py:clean_name')!;
    expect(pass1.messages[0]?.content).toContain(PRECISION_QUESTIONS.precision_pass1);
    expect(pass1.messages[1]?.content).toContain('symbol: clean_name (function)\nfile: shop/validate.py:5-6');
    expect(lines(out, 'precision_pass2')[0]!.messages[0]?.content).toContain(PRECISION_QUESTIONS.precision_pass2);
    // Execute: the task and the context package (touched symbols in full, the used neighbour's too) → the diff.
    const execute = lines(out, 'execute').find((x) => x.meta.commit === shaOf(SHOP_TASKS.limit, shop))!;
    // The execute pair carries what solve's implement pass sends: its system prompt and prompt layout, the package as the files.
    expect(execute.messages[0]?.content).toBe(SOLVE_SYSTEM.implement);
    const sections = ['## Pass: implement', '## Task', '## The plan (follow it; do only the current step)', '## Current step', '## Changes made so far', '(none)', '## Files (current content)', '# Context package'];
    const at = sections.map((h) => execute.messages[1]!.content.indexOf(h));
    expect(at).not.toContain(-1);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    expect(execute.messages[1]!.content.startsWith(passHeader('implement'))).toBe(true);
    expect(execute.messages[1]?.content).toContain('### shop/validate.py:5-6 · clean_name (primary, full source)');
    expect(execute.messages[1]?.content).toContain('### shop/models.py:3-3 · MAX_NAME (supporting, full source)');
    expect(execute.messages[2]?.content).toContain('+    if len(name) > MAX_NAME:');

    const m = manifest(out);
    expect(m.commits.map((c) => c.neighbours)).toEqual([['shop/models.py'], ['shop/pricing.py'], []]);
    expect(m.counts).toEqual({ scope: { examples: 17, yes: 5, no: 12 }, precision_pass1: { examples: 12, yes: 7, no: 5 }, precision_pass2: { examples: 8, yes: 5, no: 3 }, execute: { examples: 3, yes: 0, no: 0 } });
    for (const stage of DATASET_STAGES) {
      expect(lines(out, stage)).toHaveLength(m.files[stage].lines);
      for (const x of lines(out, stage)) expect(chatLineSchema.safeParse(x).success).toBe(true);
    }
  }, 60_000);
});

describe('cra bootstrap on the evaluation fixture', () => {
  it('takes negatives from the real candidate sets and the judge prompt as the scope stage asks it', async () => {
    const out = join(base, 'full');
    const summary = await bootstrapDataset({ repoPath: repo, dataDir: join(base, 'data'), out });
    // The eval's mining: 5 of the 14 commits qualify.
    expect(summary).toMatchObject({ mined: 5, added: 5, skipped: 0, considered: 14 });
    const length = shaOf('Handle a missing Content-Length header');
    const scope = lines(out, 'scope').filter((x) => x.meta.commit === length);
    // At its parent (the initial import) the candidates are the search seeds and their importers.
    expect(scope.map((x) => [x.meta.subject, x.meta.label])).toEqual([
      ['src/app/server.py', 'yes'],
      ['src/app/util.py', 'no'],
      ['tests/test_server.py', 'no'],
    ]);
    const first = scope[0]!;
    expect(first.messages[0]?.content).toContain(SCOPE_QUESTION);
    expect(first.messages[1]?.content).toBe(fillTemplate(CHAT_USER, { query: 'Handle a missing Content-Length header when parsing a request body', document: first.messages[1]!.content.split('Item:\n')[1]!.split('\n\nAnswer')[0]! }));
    expect(first.messages[1]?.content).toContain('path: src/app/server.py');
    expect(first.messages[2]?.content).toBe('yes');
    // Negatives of a later commit come from the candidate tiers (imports, co-change), never from the changed files.
    const cookie = lines(out, 'scope').filter((x) => x.meta.commit === shaOf('Fix cookie parsing'));
    expect(cookie.filter((x) => x.meta.label === 'no').every((x) => x.meta.tier !== undefined && x.meta.subject !== 'src/app/util.py')).toBe(true);
    const execute = lines(out, 'execute').find((x) => x.meta.commit === length)!;
    expect(execute.messages[2]?.content).toBe(runGitSync(['diff', '--no-color', `${length}^`, length, '--', 'src/app/server.py'], { cwd: repo }));
    expect(execute.messages[1]?.content).toContain('int(headers["Content-Length"])');
  }, 60_000);

  it('resumes after an interruption: finished commits kept, a half-written commit cut, no duplicates', async () => {
    const out = join(base, 'resumed');
    const controller = new AbortController();
    await expect(
      bootstrapDataset({ repoPath: repo, dataDir: join(base, 'data'), out, signal: controller.signal, onProgress: (p) => p.done === 2 && controller.abort() }),
    ).rejects.toThrow();
    expect(manifest(out).commits).toHaveLength(2);
    // A crash between appending a commit's lines and writing the manifest leaves lines the manifest does not count.
    appendFileSync(join(out, 'scope.jsonl'), '{"messages":[],"meta":{"commit":"half"}}\n');
    const summary = await bootstrapDataset({ repoPath: repo, dataDir: join(base, 'data'), out });
    expect(summary).toMatchObject({ mined: 5, added: 3, skipped: 2 });
    const full = join(base, 'full');
    for (const stage of DATASET_STAGES) {
      const keys = lines(out, stage).map((x) => `${x.meta.commit}|${x.meta.subject}`);
      expect(new Set(keys).size).toBe(keys.length);
      expect(readFileSync(join(out, `${stage}.jsonl`), 'utf8')).toBe(readFileSync(join(full, `${stage}.jsonl`), 'utf8'));
    }
    expect(manifest(out).counts).toEqual(manifest(full).counts);
    // Nothing left to do: a third run adds nothing.
    expect(await bootstrapDataset({ repoPath: repo, dataDir: join(base, 'data'), out })).toMatchObject({ added: 0, skipped: 5 });
  }, 60_000);

  it('refuses a folder that holds another repository’s dataset', async () => {
    const other = buildFixtureRepo(join(base, 'other'));
    await expect(bootstrapDataset({ repoPath: other, dataDir: join(base, 'data'), out: join(base, 'full'), commits: 1 })).rejects.toThrow(/holds a dataset of .*pick another --out folder/);
  }, 60_000);
});

describe('needed neighbours behind a package hub', () => {
  it('follows an import of a package __init__ to the file defining a name the changed file imports by name and the diff uses, not a local or an attribute of that name', async () => {
    const dir = join(base, 'hub');
    const hub = createTestRepo({ dir });
    hub.writeFiles({
      'pkg/__init__.py': 'from pkg.pricing import discount\nfrom pkg.report import summary\n',
      'pkg/pricing.py': '"""Prices."""\n\ndef discount(amount, percent):\n    return amount * (1 - percent / 100)\n',
      'pkg/report.py': '"""Reports."""\n\ndef summary(total):\n    return str(total)\n',
      'pkg/orders.py': '"""Orders."""\n\nfrom pkg import discount\n\ndef order_total(order):\n    return discount(order.amount, 0)\n',
    });
    hub.commit('Initial import', '2024-01-01T00:00:00Z');
    // discount() is imported by name through the hub and used; `summary` is a local here and order.summary an attribute, neither report.summary.
    hub.writeFiles({ 'pkg/orders.py': '"""Orders."""\n\nfrom pkg import discount\n\ndef order_total(order, percent=5):\n    summary = order.summary\n    print(summary)\n    return discount(order.amount, percent)\n' });
    hub.commit('Give order totals a default discount percentage', '2024-01-02T00:00:00Z');
    const out = join(base, 'hub-out');
    await bootstrapDataset({ repoPath: dir, dataDir: join(base, 'data'), out });
    expect(lines(out, 'scope').map((x) => [x.meta.subject, x.meta.label, x.meta.reason]).sort()).toEqual([
      ['pkg/__init__.py', 'no', 'other-candidate'],
      ['pkg/orders.py', 'yes', 'changed'],
      ['pkg/pricing.py', 'yes', 'needed-neighbour'],
      ['pkg/report.py', 'no', 'other-candidate'],
    ]);
    expect(lines(out, 'precision_pass1').map((x) => [x.meta.subject, x.meta.label])).toEqual([
      ['pkg/orders.py:order_total', 'yes'],
      ['pkg/pricing.py:discount', 'yes'],
    ]);
    expect(manifest(out).commits[0]?.neighbours).toEqual(['pkg/pricing.py']);
  }, 60_000);
});

describe('names imported by name', () => {
  it('reads Python from-imports (aliases, parenthesised lists) and JS/TS named and default imports', () => {
    const py = 'import os\nimport networkx as nx\nfrom pkg import discount, summary as s\nfrom pkg.util import (\n    a,\n    b,  # why\n)\n';
    expect(namesImportedByName(py)).toEqual(new Set(['discount', 'summary', 's', 'a', 'b']));
    const ts = "import fs from 'node:fs';\nimport { join, type Dir as D } from 'node:path';\nimport * as z from 'zod';\n";
    expect(namesImportedByName(ts)).toEqual(new Set(['fs', 'join', 'Dir', 'D']));
  });
});

describe('dataset folders', () => {
  it('refuses a folder written by an older bootstrap, naming the fix', async () => {
    const old = join(base, 'old');
    mkdirSync(old, { recursive: true });
    writeFileSync(join(old, 'manifest.json'), JSON.stringify({ version: 1, source: 'synthetic', repoPath: shop }));
    await expect(bootstrapDataset({ repoPath: shop, dataDir: join(base, 'data'), out: old, commits: 1 })).rejects.toThrow(/older cra bootstrap .*delete the folder or pick another --out folder/);
  });

  it('refuses a folder that holds files but no dataset, changing nothing; --force replaces only the dataset files', async () => {
    const mine = join(base, 'mine');
    mkdirSync(mine, { recursive: true });
    const files = { 'scope.jsonl': 'my scope labels\n', 'precision_pass1.jsonl': 'pass one\n', 'precision_pass2.jsonl': 'pass two\n', 'execute.jsonl': 'my diffs\n', 'notes.txt': 'keep me\n' };
    for (const [name, text] of Object.entries(files)) writeFileSync(join(mine, name), text);
    await expect(bootstrapDataset({ repoPath: shop, dataDir: join(base, 'data'), out: mine, commits: 1 })).rejects.toThrow(
      /mine is not empty \(execute\.jsonl, notes\.txt, precision_pass1\.jsonl, precision_pass2\.jsonl, scope\.jsonl\) and holds no bootstrap dataset .*nothing was changed\. Give an empty or new --out folder, or --force to replace its dataset files/,
    );
    for (const [name, text] of Object.entries(files)) expect(readFileSync(join(mine, name), 'utf8'), name).toBe(text);
    expect(readdirSync(mine).sort()).toEqual(Object.keys(files).sort());

    const forced = await bootstrapDataset({ repoPath: shop, dataDir: join(base, 'data'), out: mine, commits: 1, force: true });
    expect(forced.added).toBe(1);
    expect(readFileSync(join(mine, 'notes.txt'), 'utf8')).toBe('keep me\n');
    for (const stage of DATASET_STAGES) expect(lines(mine, stage).every((x) => chatLineSchema.safeParse(x).success && x.meta.source === 'synthetic'), stage).toBe(true);
    expect(manifest(mine).commits).toHaveLength(1);
  }, 60_000);

  it('refuses a dataset file shorter than its manifest records instead of padding it', async () => {
    const cut = join(base, 'cut');
    await bootstrapDataset({ repoPath: shop, dataDir: join(base, 'data'), out: cut, commits: 1 });
    writeFileSync(join(cut, 'scope.jsonl'), 'edited by hand\n');
    await expect(bootstrapDataset({ repoPath: shop, dataDir: join(base, 'data'), out: cut, commits: 1 })).rejects.toThrow(/scope\.jsonl is shorter \(15 bytes\) than .*manifest\.json records .*changed outside cra bootstrap; nothing was changed/);
    expect(readFileSync(join(cut, 'scope.jsonl'), 'utf8')).toBe('edited by hand\n');
  }, 60_000);
});
