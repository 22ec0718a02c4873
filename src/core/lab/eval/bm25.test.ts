import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestRepo, type TestRepo } from '../../testing/gitRepo';
import { Bm25Reference } from './bm25';
import { isTaskSourcePath, languageFamilyOf, taskLanguages } from './classify';

/**
 * A repository where the every-file reference and the source-only one must disagree: the test file
 * repeats the task's words more densely than the code it tests, a JavaScript asset and a tool config
 * repeat them too, and only the Python source file is a possible answer of a Python task.
 */
const FILES: Record<string, string> = {
  'src/app/server.py':
    '"""HTTP requests."""\n\ndef parse_request(raw):\n    head, _, body = raw.partition("\\n\\n")\n    headers = dict(line.split(": ", 1) for line in head.splitlines()[1:])\n    # A missing content length header means the body runs to the end.\n    return headers, body\n\ndef render(status, payload):\n    return f"{status} {payload}"\n' +
    Array.from({ length: 12 }, (_, i) => `\ndef route_${i}(request):\n    return render(200, request.path)\n`).join(''),
  'src/app/routing.py': '"""URL routing."""\n\nROUTES = {}\n\ndef dispatch(path):\n    return ROUTES[path]\n',
  'tests/test_server.py':
    'from app.server import parse_request\n\ndef test_missing_content_length_header():\n    # missing content length header\n    assert parse_request("GET /\\n\\nhi")[1] == "hi"  # content length header missing\n',
  'web/static/length.js': '// content length header of a missing body\nexport const missingContentLengthHeader = "content length header";\n',
  'setup.py': '# content length header missing\nfrom setuptools import setup\nsetup()\n',
  // Files without the task's words, so that its words are rare enough to weigh (BM25's IDF).
  ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`src/app/plugin_${i}.py`, `def plugin_${i}():\n    return ${i}\n`])),
};
const TASK = 'Handle a missing content length header';

let repo: TestRepo | undefined;
let reference: Bm25Reference | undefined;
afterEach(() => {
  reference?.close();
  repo?.cleanup();
  reference = repo = undefined;
});

function setUp(): { repo: TestRepo; reference: Bm25Reference } {
  repo = createTestRepo({ prefix: 'cra-bm25-' });
  repo.writeFiles(FILES);
  repo.commit('Initial import');
  reference = new Bm25Reference(join(repo.root, '..', 'bm25.sqlite'));
  return { repo, reference };
}

describe('the BM25 references', () => {
  it('rank the test file first over every file, and only the task-language source files in the source-only table', async () => {
    const { repo, reference } = setUp();
    expect(await reference.sync(repo.root)).toEqual({ updated: 14, removed: 0 });
    const every = reference.rank(TASK);
    // The test file says the task's words most densely: the every-file reference puts it first.
    expect(every[0]).toBe('tests/test_server.py');
    expect(every).toContain('web/static/length.js');
    expect(every.indexOf('src/app/server.py')).toBeGreaterThan(0);

    expect(every).not.toContain('setup.py');
    // Source only, Python task: the test and the JavaScript asset are out.
    expect(reference.rankSource(TASK, taskLanguages(['src/app/server.py']))).toEqual(['src/app/server.py']);
    // The same text as a JavaScript task finds only the JavaScript file.
    expect(reference.rankSource(TASK, new Set(['javascript']))).toEqual(['web/static/length.js']);
    expect(reference.rankSource(TASK, new Set())).toEqual([]);
  });

  it('keep the source-only table in step with the checkout when files change and disappear', async () => {
    const { repo, reference } = setUp();
    await reference.sync(repo.root);
    repo.remove('src/app/server.py');
    repo.write('src/app/routing.py', '"""URL routing."""\n\n# Reject a request without a content length header.\nROUTES = {}\n');
    repo.commit('Move parsing');
    expect(await reference.sync(repo.root)).toEqual({ updated: 1, removed: 1 });
    expect(reference.rankSource(TASK, new Set(['python']))).toEqual(['src/app/routing.py']);
    expect(reference.rank(TASK)).not.toContain('src/app/server.py');
  });
});

describe('the source files of a task', () => {
  it('are gold-source files of the families of its gold files', () => {
    expect(languageFamilyOf('a/b.tsx')).toBe('javascript');
    expect(languageFamilyOf('a/b.pyi')).toBe('python');
    expect(languageFamilyOf('a/b.go')).toBe('go');
    const languages = taskLanguages(['src/index.ts']);
    expect(isTaskSourcePath('lib/util.js', languages)).toBe(true);
    expect(isTaskSourcePath('lib/util.test.js', languages)).toBe(false);
    expect(isTaskSourcePath('docs/conf.js', languages)).toBe(false);
    expect(isTaskSourcePath('vite.config.ts', languages)).toBe(false);
    expect(isTaskSourcePath('tools/build.py', languages)).toBe(false);
  });
});
