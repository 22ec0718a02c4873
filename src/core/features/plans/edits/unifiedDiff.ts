/**
 * Unified diffs as coding models write them (`--- a/path`, `+++ b/path`, `@@ … @@` hunks), often
 * inside a ```diff fence and after some prose. Parsed with the `diff` package; each file's patch
 * becomes one edit that apply.ts checks and applies like a search/replace block.
 */
import { applyPatch, parsePatch, type StructuredPatch } from 'diff';

/** One file's patch from a reply. */
export interface PatchEdit {
  /** 1-based position in the reply (errors name it). */
  index: number;
  /** The path as the model wrote it, `a/`/`b/` removed (confined before any use). */
  path: string;
  /** create: from /dev/null; delete: to /dev/null. */
  kind: 'create' | 'modify' | 'delete';
  patch: StructuredPatch;
}

/** The patches of a reply, or what makes it unreadable. */
export type PatchParse = { ok: true; patches: PatchEdit[] } | { ok: false; reason: string };

const NULL_FILE = /^\/dev\/null$/;

/** True when a reply looks like a unified diff (a `+++` header and a hunk header) rather than search/replace blocks. */
export function looksLikeUnifiedDiff(text: string): boolean {
  return /^\+\+\+ \S/m.test(text) && /^@@ -\d+(,\d+)? \+\d+(,\d+)? @@/m.test(text) && !/^\s*<{5,9} ?SEARCH\s*$/m.test(text);
}

/** The diff text of a reply: thinking blocks and prose dropped, fenced ```diff blocks joined when there are any. */
function diffText(reply: string): string {
  const text = reply.replace(/<think>[\s\S]*?<\/think>/gi, '').replace(/\r\n/g, '\n');
  const fenced = [...text.matchAll(/^(```|~~~)[ \t]*(?:diff|patch|udiff)?[ \t]*\n([\s\S]*?)^\1[ \t]*$/gm)].map((m) => m[2]!).filter((body) => /^@@ /m.test(body));
  const body = fenced.length ? fenced.join('\n') : text;
  // Start at the first file header: prose before it is not part of the patch.
  const start = body.search(/^(diff --git |--- )/m);
  return start >= 0 ? body.slice(start) : body;
}

function cleanName(name: string | undefined): string {
  const trimmed = (name ?? '').trim().replace(/\t.*$/, '');
  return NULL_FILE.test(trimmed) ? '/dev/null' : trimmed.replace(/^[ab]\//, '');
}

/**
 * Read every file patch of a reply. A reply with no hunk, a patch without file names, or one the
 * `diff` package cannot parse is unreadable as a whole: a half-read reply is never applied.
 */
export function parseUnifiedDiff(reply: string): PatchParse {
  let parsed: StructuredPatch[];
  try {
    parsed = parsePatch(diffText(reply));
  } catch (error) {
    return { ok: false, reason: `the unified diff could not be read: ${(error as Error).message}` };
  }
  const patches: PatchEdit[] = [];
  for (const patch of parsed) {
    if (patch.hunks.length === 0) continue;
    const index = patches.length + 1;
    const from = cleanName(patch.oldFileName);
    const to = cleanName(patch.newFileName);
    if (!from && !to) return { ok: false, reason: `diff ${index} has no --- / +++ file names` };
    const kind = from === '/dev/null' ? 'create' : to === '/dev/null' ? 'delete' : 'modify';
    const path = kind === 'delete' ? from : to || from;
    if (kind === 'modify' && from && to && from !== to) return { ok: false, reason: `diff ${index} renames ${from} to ${to}; write a deletion and a new file instead` };
    patches.push({ index, path, kind, patch });
  }
  if (patches.length === 0) return { ok: false, reason: 'the reply has no unified diff hunk (--- a/path, +++ b/path, @@ -l,n +l,n @@)' };
  return { ok: true, patches };
}

/**
 * Apply one file's patch to its current text (null: no such file). Hunks must match the file's
 * lines exactly (no fuzz: a model's diff that does not fit is a failed attempt, not a guess).
 * Returns the new text (null: the file is deleted) or why it does not apply.
 */
export function applyFilePatch(current: string | null, edit: PatchEdit): { ok: true; content: string | null } | { ok: false; reason: string } {
  if (edit.kind === 'create' && current !== null) return { ok: false, reason: 'the diff creates the file (--- /dev/null) but it exists' };
  if (edit.kind !== 'create' && current === null) return { ok: false, reason: 'the file does not exist; a new file needs --- /dev/null' };
  const result = applyPatch(current ?? '', edit.patch, { fuzzFactor: 0 });
  if (result === false) return { ok: false, reason: "a hunk does not match the file's current lines; copy context and removed lines exactly" };
  if (edit.kind === 'delete') {
    if (result.trim() !== '') return { ok: false, reason: 'the diff deletes the file but does not remove all of its lines' };
    return { ok: true, content: null };
  }
  return { ok: true, content: result };
}
