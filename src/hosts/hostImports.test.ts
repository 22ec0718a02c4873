import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The contract is the hosts' only front door: a host (CLI, serve, MCP) reaches the engine through
 * the composition entry points — createCore, the contract's dispatch and clients — never its
 * internals. Test files and test support may use core's test support. What a host needs of the
 * engine is a request (issue #23 emptied the list of exceptions this test used to keep).
 */
const HOSTS = __dirname;
const CORE = resolve(HOSTS, '..', 'core');
const ALLOWED = [/^app\/createCore$/, /^app\/contract\/(dispatch|client|inMemoryTransport)$/, /^testing\//, /^platform\/paths$/];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [path] : [];
  });
}

/** Every `host file -> core module` edge: static imports, `import type` and require() alike. */
function coreImports(): string[] {
  const edges = new Set<string>();
  for (const file of sources(HOSTS)) {
    if (file.includes(`${join(HOSTS, 'cli', 'testing')}`) || file.includes(join('mcp', 'testing'))) continue;
    for (const match of readFileSync(file, 'utf8').matchAll(/(?:from\s+|require\()\s*'([^']+)'/g)) {
      const target = resolve(file, '..', match[1]!);
      if (!target.startsWith(`${CORE}/`) && target !== CORE) continue;
      const module = relative(CORE, target);
      if (ALLOWED.some((a) => a.test(module))) continue;
      edges.add(`${relative(HOSTS, file)} -> ${module}`);
    }
  }
  return [...edges].sort();
}

describe('hosts reach the engine only through its entry points', () => {
  it('imports nothing of src/core but createCore, the contract dispatch and clients, paths and test support', () => {
    // None left (issue #23): what a host needs of the engine is a request. ESLint (eslint.config.mjs,
    // the hosts zone) refuses the same imports file by file.
    expect(coreImports()).toEqual([]);
  });
});
