import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../platform/paths';

const src = join(packageRoot(), 'src');

/** Source files (not tests) under a folder of src/, as paths relative to src/. */
function sources(folder: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) out.push(relative(src, path));
    }
  };
  walk(join(src, folder));
  return out.sort();
}

/** The files among `files` whose text matches `pattern`. */
function filesMatching(files: readonly string[], pattern: RegExp): string[] {
  return files.filter((file) => pattern.test(readFileSync(join(src, file), 'utf8')));
}

describe('one reader, one schema owner, one registry (issue #11, item 2)', () => {
  it('search and the repository service run no SQL of their own: they read the index through the KnowledgeBase', () => {
    // registry.ts is the owner of repos.sqlite, the registry's own database (not the index).
    const files = [...sources('core/knowledge/search'), ...sources('core/knowledge/repos')].filter((f) => f !== 'core/knowledge/repos/registry.ts');
    expect(files.length).toBeGreaterThan(20);
    expect(filesMatching(files, /\.(prepare|exec|pragma)\(/)).toEqual([]);
  });

  it('the curated schema, vector tables included, is created only by core/kb/schema.ts', () => {
    const all = sources('core');
    expect(filesMatching(all, /CURATED_MIGRATIONS\s*(:[^=]*)?=/)).toEqual(['core/knowledge/kb/schema.ts']);
    expect(filesMatching(all, /using vec0\(/)).toEqual(['core/knowledge/kb/schema.ts']);
    // eval/bm25.ts builds the evaluation's own baseline database (a `files` table of its own), not the index.
    const others = all.filter((f) => f !== 'core/lab/eval/bm25.ts');
    expect(filesMatching(others, /create (table|index|trigger)( if not exists)? (search_|chunks|files|symbols)/)).toEqual(['core/knowledge/kb/schema.ts']);
  });

  it('one RepoRegistry per engine: created by the composition root (and the CLI lookup before an engine exists)', () => {
    const all = [...sources('core'), ...sources('hosts'), ...sources('main')];
    expect(filesMatching(all, /new RepoRegistry\(/)).toEqual(['core/app/createCore.ts', 'core/knowledge/repos/indexed.ts']);
  });

  it('one reader pool per engine, and the handlers open no database of their own: they take the repository handle (issue 23)', () => {
    const all = [...sources('core'), ...sources('hosts'), ...sources('main')];
    expect(filesMatching(all, /new KbReaders\(/)).toEqual(['core/app/createCore.ts']);
    const domains = sources('core/app/domains');
    expect(domains.length).toBeGreaterThan(15);
    expect(filesMatching(domains, /KnowledgeBase\.open\(|openRawDatabase\(|ConversationStore\.open\(|openIndexedRepo\(|repoPaths\(/)).toEqual([]);
  });

  it('NOT_INDEXED is decided in core/repos/indexed.ts (the KnowledgeBase only reports a file it cannot open)', () => {
    const all = [...sources('core'), ...sources('hosts'), ...sources('main')];
    expect(filesMatching(all, /AppError\(\s*'NOT_INDEXED'/)).toEqual(['core/knowledge/kb/knowledgeBase.ts', 'core/knowledge/repos/indexed.ts']);
  });
});
