import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Reason } from '../../../shared/contract/reasons';
import { buildPackage, DEFAULT_SAFETY_MARGIN, effectiveBudget, estimateTokens, renderJson, renderMarkdown, type ContextPackage } from './package';
import type { ContextFile, ContextSymbol, SymbolRole } from './stage';
import { createRetrievalFixture, type RetrievalFixture } from '../../testing/retrievalFixture';

let fx: RetrievalFixture;
beforeAll(async () => {
  fx = await createRetrievalFixture();
}, 60_000);
afterAll(() => fx.cleanup());

const TASK = { id: 't-1', text: 'Fix `tokenize` in calc/tokenizer.py: it drops newline characters' };
const named: Reason = { kind: 'named-in-task', detail: { text: 'tokenize' } };

/** The fixture's files with roles given by hand (as precision would leave them). */
function fixtureFiles(): ContextFile[] {
  const sym = (path: string, qualifiedName: string, role: SymbolRole, reasons: Reason[] = []): ContextSymbol => {
    const s = fx.kb.getSymbolsForFile(fx.kb.getFileByPath(path)!.id).find((x) => x.qualifiedName === qualifiedName)!;
    return { symbolId: s.id, name: s.name, qualifiedName, kind: s.kind, signature: s.signature, startLine: s.startLine, endLine: s.endLine, parentId: s.parentId, role, reasons };
  };
  const file = (path: string, tier: number, reasons: Reason[], symbols?: ContextSymbol[]): ContextFile => ({ fileId: fx.kb.getFileByPath(path)!.id, path, tier, reasons, ...(symbols ? { symbols } : {}) });
  return [
    file('calc/tokenizer.py', 1, [named], [sym('calc/tokenizer.py', 'tokenize', 'primary', [named]), sym('calc/tokenizer.py', '_split_lines', 'type_context')]),
    file('calc/parser.py', 2, [{ kind: 'imports', detail: { path: 'calc/tokenizer.py' } }], [sym('calc/parser.py', 'Parser', 'supporting'), sym('calc/parser.py', 'Parser.parse', 'primary')]),
    file('docs/CHANGELOG.md', 3, [{ kind: 'co-change', detail: { path: 'calc/tokenizer.py', commits: 3 } }]),
  ];
}
const read = (path: string) => readFileSync(join(fx.repo.root, path), 'utf8');
const itemsOf = (pkg: ContextPackage) => pkg.files.flatMap((f) => f.items.map((i) => `${f.path}:${i.symbol?.qualifiedName ?? '*'}:${i.detail}`));

describe('budget config', () => {
  it('is window − reserved, and refuses a window of 0, negative reserved tokens and reserved ≥ window with the reason', () => {
    expect(effectiveBudget({ contextWindow: 32_768, reservedTokens: 4096 })).toBe(28_672);
    expect(() => effectiveBudget({ contextWindow: 0, reservedTokens: 0 })).toThrow(/context window must be a whole number of tokens above 0 \(got 0\)/);
    expect(() => effectiveBudget({ contextWindow: 100, reservedTokens: -1 })).toThrow(/reserved tokens must be a whole number, 0 or more/);
    expect(() => effectiveBudget({ contextWindow: 100, reservedTokens: 100 })).toThrow(/must be fewer than the context window/);
    expect(estimateTokens('abcd'.repeat(10), 0)).toBe(10);
    expect(estimateTokens('abcd'.repeat(10), 0.1)).toBe(11);
  });
});

describe('context package', () => {
  it('with room: primary in full, signatures for type_context, a supporting class that holds a primary body kept as its signature, whole docs last', () => {
    const pkg = buildPackage({ task: TASK, files: fixtureFiles(), budgetTokens: 10_000, readSource: read, kb: fx.kb });
    expect(itemsOf(pkg)).toEqual(['calc/tokenizer.py:tokenize:full', 'calc/tokenizer.py:_split_lines:signature', 'calc/parser.py:Parser:signature', 'calc/parser.py:Parser.parse:full', 'docs/CHANGELOG.md:*:file']);
    expect(pkg.dropped).toEqual([]);
    expect(pkg.files[0]!.items[0]!.text).toContain('return re.findall');
    expect(pkg.files[0]!.items[0]!.reasons).toEqual([named]);
    expect(pkg.edges).toEqual([{ from: 'calc/parser.py', to: 'calc/tokenizer.py' }]);
    const md = renderMarkdown(pkg);
    expect(md).toContain('\n## calc/tokenizer.py\n\ntier 1 · named in the task (“tokenize”)\n');
    expect(md).toMatch(/\n### calc\/tokenizer\.py:4-6 · tokenize \(primary, full source\)\n```\ndef tokenize\(text\):/);
    expect(estimateTokens(md, DEFAULT_SAFETY_MARGIN)).toBeLessThanOrEqual(pkg.budget.used);
    expect(JSON.parse(renderJson(pkg))).toEqual(pkg);
  });

  it('packs a line once: a signature line another item already shows is named by that item, its tokens not counted again', () => {
    const files = fixtureFiles().slice(0, 1);
    const [primary, helper] = files[0]!.symbols!;
    // Two symbols whose signature is the same line (as the modules of one import statement are).
    files[0]!.symbols = [primary!, helper!, { ...helper!, symbolId: null, name: 'twin', qualifiedName: 'twin' }];
    const pkg = buildPackage({ task: TASK, files, budgetTokens: 10_000, readSource: read, kb: fx.kb });
    const atHelper = pkg.files[0]!.items.filter((i) => i.startLine === helper!.startLine);
    expect(atHelper).toHaveLength(1);
    expect(atHelper[0]).toMatchObject({ symbol: { qualifiedName: '_split_lines' }, alsoCovers: ['twin'] });
    const alone = buildPackage({ task: TASK, files: [{ ...files[0]!, symbols: [primary!, helper!] }], budgetTokens: 10_000, readSource: read, kb: fx.kb });
    expect(pkg.budget.used).toBe(alone.budget.used);
    expect(renderMarkdown(pkg).split(helper!.signature).length - 1).toBe(1);
  });

  it('when tight: a supporting body stays a signature and a primary body is demoted, both said so; what does not fit is dropped with what it needed', () => {
    const header = buildPackage({ task: TASK, files: [], budgetTokens: 10_000, readSource: read }).budget.used;
    const roomy = buildPackage({ task: TASK, files: fixtureFiles(), budgetTokens: 10_000, readSource: read });
    // Enough for tokenize's body and the signatures, not for Parser's body nor the changelog.
    const tight = buildPackage({ task: TASK, files: fixtureFiles(), budgetTokens: roomy.files[0]!.headerTokens + roomy.files[0]!.items.reduce((n, i) => n + i.tokens, 0) + header + 60, readSource: read });
    expect(itemsOf(tight)).toContain('calc/tokenizer.py:tokenize:full');
    const parser = tight.files.find((f) => f.path === 'calc/parser.py');
    const parserItems = parser?.items.map((i) => [i.symbol?.qualifiedName, i.detail, i.reasons.map((r) => r.kind)]) ?? [];
    expect(parserItems).not.toContainEqual(['Parser', 'full', []]);
    expect(tight.dropped.length + parserItems.length).toBeGreaterThan(0);
    for (const d of tight.dropped) expect(d.reasons.at(-1)?.kind).toBe('over-budget');
    expect(tight.dropped.map((d) => d.path)).toContain('docs/CHANGELOG.md');
    // A primary whose body cannot fit becomes its signature, with the demotion as a reason.
    const one = fixtureFiles().slice(0, 1);
    one[0]!.symbols = one[0]!.symbols!.slice(0, 1);
    const asSignature = buildPackage({ task: TASK, files: [{ ...one[0]!, symbols: [{ ...one[0]!.symbols![0]!, role: 'type_context' }] }], budgetTokens: 10_000, readSource: read }).budget.used;
    const minimal = buildPackage({ task: TASK, files: one, budgetTokens: asSignature, readSource: read });
    expect(buildPackage({ task: TASK, files: one, budgetTokens: 10_000, readSource: read }).budget.used).toBeGreaterThan(asSignature);
    expect(minimal.files[0]?.items).toEqual([expect.objectContaining({ symbol: expect.objectContaining({ qualifiedName: 'tokenize' }), detail: 'signature', reasons: [named, { kind: 'demoted', detail: { fullTokens: expect.any(Number) } }] })]);
    expect(minimal.budget.used).toBeLessThanOrEqual(asSignature);
    expect(() => buildPackage({ task: TASK, files: [], budgetTokens: 5, readSource: read })).toThrow(/cannot hold even the package header/);
  });
});

/** mulberry32: a small seeded generator, so a failing case can be replayed by its seed. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('context package, property: random files, symbols and budgets', () => {
  it('never exceeds the budget (rendered markdown included) and places the seed primary symbols first: as they would be alone', () => {
    const roles: SymbolRole[] = ['primary', 'supporting', 'type_context'];
    for (let seed = 1; seed <= 300; seed++) {
      const r = rng(seed);
      const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
      const sources = new Map<string, string>();
      const files: ContextFile[] = Array.from({ length: int(1, 6) }, (_, fi) => {
        const path = `pkg/f${fi}.py`;
        const lines = Array.from({ length: int(5, 200) }, (_, li) => `line ${li} ${'x'.repeat(int(0, 80))}`);
        sources.set(path, lines.join('\n'));
        const symbols: ContextSymbol[] = r() < 0.15 ? [] : Array.from({ length: int(1, 8) }, (_, si) => {
          const start = int(1, lines.length);
          const end = Math.min(lines.length, start + int(0, 60));
          return { symbolId: fi * 100 + si, name: `s${si}`, qualifiedName: `s${si}`, kind: 'function', signature: `def s${si}(${'a, '.repeat(int(0, 5))})`, startLine: start, endLine: end, parentId: null, role: roles[int(0, 2)]!, reasons: [] };
        });
        return { fileId: fi, path, tier: fi === 0 ? 1 : int(2, 3), reasons: [{ kind: 'seed', detail: { rank: fi + 1 } }], symbols };
      });
      const budget = int(40, 8000);
      const readSource = (p: string) => sources.get(p) ?? null;
      let pkg: ContextPackage;
      try {
        pkg = buildPackage({ task: { id: `t${seed}`, text: 'do the thing' }, files, budgetTokens: budget, readSource });
      } catch (error) {
        // Only a budget below the header's own size may refuse.
        expect((error as Error).message, `seed ${seed}`).toMatch(/cannot hold even the package header/);
        continue;
      }
      const context = `seed ${seed}, budget ${budget}`;
      expect(pkg.budget.used, context).toBeLessThanOrEqual(budget);
      expect(estimateTokens(renderMarkdown(pkg), DEFAULT_SAFETY_MARGIN), context).toBeLessThanOrEqual(pkg.budget.used);
      const sum = (pkg.files.length ? estimateTokens('# Context package\n\nTask: do the thing\n', DEFAULT_SAFETY_MARGIN) : 0) + pkg.files.reduce((n, f) => n + f.headerTokens + f.items.reduce((m, i) => m + i.tokens, 0), 0);
      if (pkg.files.length) expect(sum, context).toBe(pkg.budget.used);
      // The seed's primaries come first: whatever else is added, each of them is placed exactly as it is
      // when the package holds nothing but them (more context never displaces or demotes them).
      const seedOnly = buildPackage({ task: { id: `t${seed}`, text: 'do the thing' }, files: [{ ...files[0]!, symbols: files[0]!.symbols!.filter((s) => s.role === 'primary') }], budgetTokens: budget, readSource });
      const shape = (p: ContextPackage) => (p.files.find((f) => f.path === files[0]!.path)?.items ?? []).filter((i) => i.symbol?.role === 'primary').map((i) => `${i.symbol?.qualifiedName}:${i.detail}`);
      expect(shape(pkg), context).toEqual(shape(seedOnly));
      // Everything judged in is either placed, covered by a body, named by the item that shows its line, or listed as dropped.
      for (const f of files) {
        for (const s of f.symbols ?? []) {
          const inPkg = pkg.files.find((p) => p.path === f.path)?.items.some((i) => i.symbol?.qualifiedName === s.qualifiedName || (i.detail === 'full' && i.startLine <= s.startLine && s.endLine <= i.endLine) || i.alsoCovers?.includes(s.qualifiedName));
          expect(inPkg || pkg.dropped.some((d) => d.path === f.path && d.symbol === s.qualifiedName), `${context} ${f.path}:${s.qualifiedName}`).toBe(true);
        }
      }
    }
  });
});
