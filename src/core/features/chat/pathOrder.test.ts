import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { comparePaths } from './pathOrder';

describe('the order of paths that tie on score (chat)', () => {
  const paths = ['src/b.py', 'src/B.py', 'src/a.py', 'src/á.py', 'src/ä.py', 'src/z.py', 'src/10.py', 'src/9.py', 'src/_x.py', 'src/-x.py', 'src/.x', 'lib/Ünïcödé/ñ.ts', 'lib/日本/語.ts', 'lib/ελληνικά.js', 'a/b/c', 'a-b/c', 'a_b/c', 'a.b/c', 'A/b/c', '', 'src/b.py'];

  it('is by UTF-16 code units: capitals before small letters, punctuation by its code, digits one by one', () => {
    expect([...paths].sort(comparePaths)).toEqual(['', 'A/b/c', 'a-b/c', 'a.b/c', 'a/b/c', 'a_b/c', 'lib/Ünïcödé/ñ.ts', 'lib/ελληνικά.js', 'lib/日本/語.ts', 'src/-x.py', 'src/.x', 'src/10.py', 'src/9.py', 'src/B.py', 'src/_x.py', 'src/a.py', 'src/b.py', 'src/b.py', 'src/z.py', 'src/á.py', 'src/ä.py']);
    for (const a of paths) for (const b of paths) expect(Math.sign(comparePaths(a, b)), `${a} vs ${b}`).toBe(-Math.sign(comparePaths(b, a)) || 0);
    expect(comparePaths('src/b.py', 'src/b.py')).toBe(0);
  });

  it('does not depend on the locale: a process whose default locale sorts differently gets the same order', () => {
    const program = `require('tsx/cjs/api').register(); const { comparePaths } = require(${JSON.stringify(join(__dirname, 'pathOrder.ts'))}); process.stdout.write(JSON.stringify(${JSON.stringify(paths)}.sort(comparePaths)));`;
    const orders = ['en_US.UTF-8', 'sv_SE.UTF-8', 'C'].map((lang) => spawnSync(process.execPath, ['-e', program], { encoding: 'utf8', env: { ...process.env, LANG: lang, LC_ALL: lang } }).stdout);
    expect(orders[0]).toBe(JSON.stringify([...paths].sort(comparePaths)));
    expect(new Set(orders).size).toBe(1);
  }, 60_000);
});
