import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../platform/db/open';
import { createExtractor } from '../indexer/extract/extractor';
import { indexRepository } from '../indexer/indexer';
import { createTestRepo, type TestRepo } from '../../testing/gitRepo';
import { writeSample } from '../../testing/sampleRepo';
import { KnowledgeBase } from './knowledgeBase';

let repo: TestRepo;
let dataDir: string;
let kb: KnowledgeBase;
const id = (path: string) => kb.getFileByPath(path)!.id;

beforeAll(async () => {
  repo = createTestRepo();
  writeSample(repo);
  dataDir = mkdtempSync(join(tmpdir(), 'cra-kb-'));
  const extractor = await createExtractor();
  const curatedFile = join(dataDir, 'curated.sqlite');
  await indexRepository({ root: repo.root, curatedFile, extractor: async () => extractor });
  extractor.dispose();
  kb = KnowledgeBase.open(curatedFile, 'sample');
});
afterAll(() => {
  kb.close();
  repo.cleanup();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('KnowledgeBase', () => {
  it('lists files, by language and by path', () => {
    expect(kb.getFiles().map((f) => f.path)).toEqual([
      'README.md', 'legacy.py', 'pkg/__init__.py', 'pkg/core.py', 'pkg/util.py', 'tests/test_core.py', 'web/app.ts', 'web/greet.test.ts', 'web/greet.ts',
    ]);
    expect(kb.getFiles({ language: 'typescript' }).map((f) => f.path)).toEqual(['web/app.ts', 'web/greet.test.ts', 'web/greet.ts']);
    expect(kb.getFiles({ repoId: 'another' })).toEqual([]);
    expect(kb.getFileByPath('tests/test_core.py')).toMatchObject({ language: 'python', isTest: true, skipReason: null, lines: 5 });
    expect(kb.getFileByPath('assets/logo.bin')).toMatchObject({ skipReason: 'binary' });
    expect(kb.getFileByPath('nope.py')).toBeNull();
    expect(kb.getSkippedFiles().map((s) => s.reason)).toEqual(['binary', 'oversize', 'minified']);
  });

  it('returns [] from metadata search before enrichment', () => {
    expect(kb.searchFilesByMetadata({ domain: 'billing', concepts: ['x'] })).toEqual([]);
    expect(kb.searchFilesByMetadata()).toEqual([]);
  });

  it('reads symbols and finds them by name or pattern', () => {
    expect(kb.getSymbolsForFile(id('pkg/core.py'), 'method').map((s) => s.qualifiedName)).toEqual(['Base.run', 'Engine.start', 'Engine.stop']);
    expect(kb.searchSymbolsByName('helper').map((s) => [s.path, s.kind])).toEqual([['pkg/util.py', 'function']]);
    expect(kb.searchSymbolsByName('Engine.start')).toHaveLength(1);
    expect(kb.searchSymbolsByName('Engine*').map((s) => s.qualifiedName)).toEqual(['Engine', 'Engine.stop', 'Engine.start']);
  });

  it('follows symbol references both ways', () => {
    const start = kb.searchSymbolsByName('Engine.start')[0]!;
    const out = kb.getSymbolNeighbors(start.id, 'outgoing');
    expect(out.map((n) => n.symbol?.qualifiedName).sort()).toEqual(['Base.run', 'Engine.stop', 'helper']);
    const helper = kb.searchSymbolsByName('helper')[0]!;
    const incoming = kb.getSymbolNeighbors(helper.id, 'incoming', ['call']);
    expect(incoming).toEqual([expect.objectContaining({ direction: 'incoming', referenceKind: 'call', path: 'pkg/core.py', symbol: expect.objectContaining({ qualifiedName: 'Engine.start' }) })]);
  });

  it('reads a file’s imports, resolved to an indexed file or not, and the names a symbol uses', () => {
    expect(kb.getImports(id('pkg/core.py'))).toEqual([
      { specifier: 'os', names: [], alias: null, level: 0, line: 2, resolved: false },
      { specifier: 'pkg.util', names: ['helper', 'CONSTANT'], alias: null, level: 0, line: 3, resolved: true },
    ]);
    const stop = kb.searchSymbolsByName('Engine.stop')[0]!;
    expect(kb.getReferencesFrom(stop.id)).toEqual([expect.objectContaining({ kind: 'attribute_call', name: 'os.getcwd', line: 21, resolved: false })]);
    const start = kb.searchSymbolsByName('Engine.start')[0]!;
    expect(kb.getReferencesFrom(start.id).filter((r) => r.resolved).map((r) => r.name)).toEqual(expect.arrayContaining(['helper']));
  });

  it('reads dependencies, the subgraph and co-change neighbours', () => {
    const core = id('pkg/core.py');
    expect(kb.getDependencies(core, 'outgoing').map((d) => d.path)).toEqual(['pkg/util.py']);
    expect(kb.getDependencies(core, 'incoming').map((d) => d.path)).toEqual(['pkg/__init__.py', 'tests/test_core.py']);
    const graph = kb.getDependencySubgraph([id('pkg/util.py')], 2);
    expect(graph.files.map((f) => f.path).sort()).toEqual(['pkg/__init__.py', 'pkg/core.py', 'pkg/util.py', 'tests/test_core.py']);
    expect(graph.depth[core]).toBe(1);
    expect(graph.edges).toContainEqual({ fromFileId: core, toFileId: id('pkg/util.py'), kind: 'import' });
    expect(kb.getCoChangeNeighbors(core, 2)).toEqual([{ fileId: id('pkg/util.py'), path: 'pkg/util.py', count: 3 }]);
    expect(kb.getCoChangeNeighbors(core, 4)).toEqual([]);
  });

  it('reads docstrings, rationale, commits, tests and the whole file context', () => {
    const util = id('pkg/util.py');
    expect(kb.getDocstringsForFile(util).symbols).toEqual([expect.objectContaining({ qualifiedName: 'helper', docstring: 'Double it.' })]);
    expect(kb.getRationaleComments(id('pkg/core.py'))).toEqual([expect.objectContaining({ tag: 'TODO', line: 15, symbolName: 'Engine.start' })]);
    expect(kb.getRecentCommitsForFile(util, 2).map((c) => [c.message, c.date.slice(0, 10), c.author])).toEqual([
      ['tune again', '2024-01-03', 'Test Author'],
      ['tune constant', '2024-01-02', 'Test Author'],
    ]);
    const ctx = kb.getFileContext(id('pkg/core.py'));
    expect(ctx.symbols).toHaveLength(5);
    expect(ctx.docstrings.moduleDoc).toContain('Core engine');
    expect(ctx.tests.map((t) => t.path)).toEqual(['tests/test_core.py']);
    expect(ctx.commits).toHaveLength(3);
    expect(() => kb.getFileContext(99_999)).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });

  it('summarises the repository and has no adapters yet', () => {
    const overview = kb.getRepoOverview();
    expect(overview).toMatchObject({ files: 9, skippedFiles: 3, testFiles: 2, commits: 3, domains: {}, lastCommitDate: expect.stringMatching(/^2024-01-03/) });
    expect(overview.languages).toEqual({ python: 5, typescript: 3, markdown: 1 });
    expect(overview.mostConnected[0]!.path).toBe('pkg/core.py');
    expect(overview.resolvedReferences).toBeGreaterThan(0);
    expect(kb.getAdapterForStage('scope')).toBeNull();
  });

  it('is read-only', () => {
    const db = openDatabase(join(dataDir, 'curated.sqlite'), { readOnly: true });
    expect(() => db.exec('delete from files')).toThrow(/readonly/);
    db.close();
  });
});
