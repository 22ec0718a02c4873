import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Test support: every file under `dir` (relative path) with the sha256 of its bytes — what "byte-identical" compares. */
export function hashTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = join(entry.parentPath, entry.name);
    out[relative(dir, file)] = createHash('sha256').update(readFileSync(file)).digest('hex');
  }
  return out;
}
