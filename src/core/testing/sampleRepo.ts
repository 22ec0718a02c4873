import type { TestRepo } from './gitRepo';

/** The Python module of the sample repository. */
export const CORE_PY = `"""Core engine."""
import os
from pkg.util import helper, CONSTANT


class Base:
    def run(self):
        return 1


class Engine(Base):
    """Runs things."""

    def start(self):
        # TODO: make this configurable because the defaults are odd
        self.stop()
        helper(CONSTANT)
        return self.run()

    def stop(self):
        return os.getcwd()
`;

/** A small Python + TypeScript project with three commits. */
export function writeSample(repo: TestRepo): void {
  repo.write('pkg/__init__.py', 'from .core import Engine\n');
  repo.write('pkg/core.py', CORE_PY);
  repo.write('pkg/util.py', 'CONSTANT = 3\n\n\ndef helper(x):\n    """Double it."""\n    return x * 2\n');
  repo.write('tests/test_core.py', 'from pkg.core import Engine\n\n\ndef test_start():\n    assert Engine().start() == 1\n');
  repo.write('web/app.ts', "import { greet } from './greet';\n\nexport function main(): string {\n  return greet('x');\n}\n");
  repo.write('web/greet.ts', "export function greet(name: string): string {\n  return 'hi ' + name;\n}\n");
  repo.write('web/greet.test.ts', "import { greet } from './greet';\ngreet('t');\n");
  repo.write('README.md', '# Sample\n\nThe frobnicator explains everything.\n');
  repo.write('assets/logo.bin', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1, 2, 3]));
  repo.write('vendor/lib.min.js', `var a=${'1+'.repeat(3000)}1;`);
  repo.write('big.txt', 'x'.repeat(1_100_000));
  repo.write('legacy.py', Buffer.from('# caf\xe9 cr\xe8me\ndef ancien_regime():\n    return "d\xe9j\xe0"\n', 'latin1'));
  repo.commit('initial', 1);
  repo.write('pkg/core.py', `${CORE_PY}\n# second\n`);
  repo.write('pkg/util.py', 'CONSTANT = 4\n\n\ndef helper(x):\n    """Double it."""\n    return x * 2\n');
  repo.commit('tune constant', 2);
  repo.write('pkg/core.py', `${CORE_PY}\n# third\n`);
  repo.write('pkg/util.py', 'CONSTANT = 5\n\n\ndef helper(x):\n    """Double it."""\n    return x * 2\n');
  repo.commit('tune again', 3);
}

