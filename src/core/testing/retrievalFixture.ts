/**
 * Test support for retrieval: a small Python + TypeScript repository with real git history
 * (so co-change counts exist), indexed into a real curated SQLite file, opened as a KnowledgeBase.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createExtractor } from '../knowledge/indexer/extract/extractor';
import { indexRepository } from '../knowledge/indexer/indexer';
import { KnowledgeBase } from '../knowledge/kb/knowledgeBase';
import { createTestRepo, type TestRepo } from './gitRepo';

/** The indexed fixture: its repository, index and data folder. */
export interface RetrievalFixture {
  repo: TestRepo;
  kb: KnowledgeBase;
  dataDir: string;
  cleanup(): void;
}

const FILES: Record<string, string> = {
  'calc/tokenizer.py': 'import re\n\n\ndef tokenize(text):\n    """Split an expression into number and operator tokens."""\n    return re.findall(r"\\d+|[+*/()-]", text)\n\n\ndef _split_lines(text):\n    return text.splitlines()\n',
  'calc/parser.py': 'from calc.tokenizer import tokenize\n\n\nclass Parser:\n    """Parse tokens into a tree."""\n\n    def parse(self, text):\n        tokens = tokenize(text)\n        return self.expression(tokens)\n\n    def expression(self, tokens):\n        return tokens\n',
  'calc/evaluator.py': 'from calc.parser import Parser\n\n\ndef evaluate(text):\n    """Evaluate an arithmetic expression."""\n    return Parser().parse(text)\n',
  'calc/cli.py': 'from calc.evaluator import evaluate\n\n\ndef main(argv):\n    print(evaluate(argv[0]))\n',
  'calc/units.py': 'METERS_PER_FOOT = 0.3048\n\n\ndef feet_to_meters(feet):\n    return feet * METERS_PER_FOOT\n',
  'tests/test_tokenizer.py': 'from calc.tokenizer import tokenize\n\n\ndef test_tokenize():\n    assert tokenize("1+2") == ["1", "+", "2"]\n',
  'web/format.ts': 'export function formatResult(value: number): string {\n  return value.toFixed(2);\n}\n',
  'web/page.ts': "import { formatResult } from './format';\n\nexport function renderPage(value: number): string {\n  return `<p>${formatResult(value)}</p>`;\n}\n",
  'docs/CHANGELOG.md': '# Changes\n\n- tokenizer: handle newlines\n',
};

/** Build, commit (with history that makes tokenizer.py and CHANGELOG.md change together three times) and index the fixture. */
export async function createRetrievalFixture(): Promise<RetrievalFixture> {
  const repo = createTestRepo();
  repo.writeFiles(FILES);
  repo.commit('initial calculator');
  for (let i = 1; i <= 3; i++) {
    repo.write('calc/tokenizer.py', `${FILES['calc/tokenizer.py']}\n# revision ${i}\n`);
    repo.write('docs/CHANGELOG.md', `${FILES['docs/CHANGELOG.md']}- tokenizer revision ${i}\n`);
    repo.commit(`tokenizer revision ${i}`);
  }
  repo.write('calc/units.py', `${FILES['calc/units.py']}\n# metric\n`);
  repo.write('calc/cli.py', `${FILES['calc/cli.py']}\n# usage\n`);
  repo.commit('units and cli');
  const dataDir = mkdtempSync(join(tmpdir(), 'cra-retrieval-'));
  const extractor = await createExtractor();
  const curatedFile = join(dataDir, 'curated.sqlite');
  try {
    await indexRepository({ root: repo.root, curatedFile, extractor: async () => extractor });
  } finally {
    extractor.dispose();
  }
  const kb = KnowledgeBase.open(curatedFile, 'calc');
  return {
    repo,
    kb,
    dataDir,
    cleanup() {
      kb.close();
      repo.cleanup();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
