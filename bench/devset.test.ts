import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pickDevRepos } from './search.bench';

describe('bench/devset.json', () => {
  it('pins at least four large repositories, two Python and two JS/TS, each at a full commit sha', () => {
    const { repositories } = JSON.parse(readFileSync(join(__dirname, 'devset.json'), 'utf8')) as {
      repositories: Array<{ name: string; url: string; commit: string; language: string; size: string; sourceFiles: number }>;
    };
    for (const r of repositories) expect(r.commit, r.name).toMatch(/^[0-9a-f]{40}$/);
    const large = repositories.filter((r) => r.size === 'large');
    expect(large.every((r) => r.sourceFiles >= 300)).toBe(true);
    expect(large.filter((r) => r.language === 'python').length).toBeGreaterThanOrEqual(2);
    expect(large.filter((r) => r.language === 'javascript' || r.language === 'typescript').length).toBeGreaterThanOrEqual(2);
    expect(new Set(repositories.map((r) => r.name)).size).toBe(repositories.length);
  });
});

describe('pickDevRepos', () => {
  const repo = (name: string, files: number) => ({ name, root: `/d/${name}`, files });
  it('takes the repository nearest 1,000 files and the largest', () => {
    expect(pickDevRepos([repo('a', 120), repo('b', 974), repo('c', 3778), repo('d', 2358)]).map((r) => `${r.role}:${r.name}`)).toEqual(['1k:b', 'largest:c']);
  });
  it('measures one repository once when it is both', () => {
    expect(pickDevRepos([repo('a', 120), repo('b', 900)]).map((r) => `${r.role}:${r.name}`)).toEqual(['largest:b']);
    expect(pickDevRepos([])).toEqual([]);
  });
});
