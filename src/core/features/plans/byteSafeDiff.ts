/**
 * A run's cumulative diff that keeps every byte. A run's diff is kept as text (the raw DB, the
 * session, prompts); git's text diff of a file that is not UTF-8 (latin-1 `caf\xe9`) would lose
 * its bytes when decoded. Such files are written as git binary patches instead (zlib, base85:
 * ASCII), which `git apply --binary` restores byte for byte; every other file is git's own diff.
 */
import { isUtf8 } from 'node:buffer';
import { deflateSync } from 'node:zlib';
import { gitText, runGit } from '../../platform/git';

const BASE85 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~';
const ZERO_ID = '0'.repeat(40);

/** git's base85 of up to 52 bytes: each 4 bytes (zero-padded) as 5 digits, most significant first. */
function base85(chunk: Buffer): string {
  let out = '';
  for (let i = 0; i < chunk.length; i += 4) {
    let acc = 0;
    for (let j = 0; j < 4; j++) acc = acc * 256 + (chunk[i + j] ?? 0);
    const digits: string[] = [];
    for (let k = 0; k < 5; k++) {
      digits.unshift(BASE85[acc % 85]!);
      acc = Math.floor(acc / 85);
    }
    out += digits.join('');
  }
  return out;
}

/** One `literal` section of a binary patch: the deflated bytes in lines of 52, each led by its length. */
function literal(bytes: Buffer): string {
  const data = deflateSync(bytes);
  const lines = [`literal ${bytes.length}`];
  for (let i = 0; i < data.length; i += 52) {
    const chunk = data.subarray(i, i + 52);
    const length = chunk.length <= 26 ? String.fromCharCode(64 + chunk.length) : String.fromCharCode(96 + chunk.length - 26);
    lines.push(length + base85(chunk));
  }
  return `${lines.join('\n')}\n\n`;
}

/** A path as git's diff header writes it: quoted with C escapes when it holds `"`, `\` or a control character. */
export function quoteGitPath(path: string): string {
  if (!/["\\\x00-\x1f\x7f]/.test(path)) return path;
  const named: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\v': '\\v' };
  return `"${path.replace(/["\\\x00-\x1f\x7f]/g, (c) => named[c] ?? `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`)}"`;
}

/** One file's change as a git binary patch (forward and reverse literals). */
export function binaryPatch(path: string, old: { id: string; mode: string; bytes: Buffer } | null, next: { id: string; mode: string; bytes: Buffer } | null): string {
  const a = quoteGitPath(`a/${path}`);
  const b = quoteGitPath(`b/${path}`);
  const head = [`diff --git ${a} ${b}`];
  if (!old) head.push(`new file mode ${next!.mode}`);
  else if (!next) head.push(`deleted file mode ${old.mode}`);
  else if (old.mode !== next.mode) head.push(`old mode ${old.mode}`, `new mode ${next.mode}`);
  const mode = old && next && old.mode === next.mode ? ` ${old.mode}` : '';
  head.push(`index ${old?.id ?? ZERO_ID}..${next?.id ?? ZERO_ID}${mode}`, 'GIT binary patch');
  return `${head.join('\n')}\n${literal(next?.bytes ?? Buffer.alloc(0))}${literal(old?.bytes ?? Buffer.alloc(0))}`;
}

/** The bytes of blobs, by id (`git cat-file --batch`). */
async function readBlobs(cwd: string, ids: string[], signal?: AbortSignal): Promise<Map<string, Buffer>> {
  const blobs = new Map<string, Buffer>();
  if (ids.length === 0) return blobs;
  const out = await runGit(['cat-file', '--batch'], { cwd, signal, input: ids.map((id) => `${id}\n`).join('') });
  let at = 0;
  for (const id of ids) {
    const eol = out.indexOf(0x0a, at);
    const size = Number(out.subarray(at, eol).toString('latin1').split(' ')[2]);
    blobs.set(id, out.subarray(eol + 1, eol + 1 + size));
    at = eol + 1 + size + 1;
  }
  return blobs;
}

/** The diff of `from`..`to` in `cwd`: git's text (and binary) diff, with non-UTF-8 files as binary patches. */
export async function byteSafeDiff(cwd: string, from: string, to: string, signal?: AbortSignal): Promise<string> {
  const args = ['diff', '--no-renames', '--no-ext-diff', '--no-color', '--binary', '--src-prefix=a/', '--dst-prefix=b/', from, to];
  const raw = (await runGit(['diff', '--raw', '-z', '--no-renames', '--no-abbrev', from, to], { cwd, signal })).toString('utf8').split('\0');
  const entries: Array<{ path: string; oldMode: string; newMode: string; oldId: string; newId: string }> = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const [oldMode, newMode, oldId, newId] = raw[i]!.replace(/^:/, '').split(' ');
    entries.push({ path: raw[i + 1]!, oldMode: oldMode!, newMode: newMode!, oldId: oldId!, newId: newId! });
  }
  const ids = [...new Set(entries.flatMap((e) => [e.oldId, e.newId]).filter((id) => id !== ZERO_ID))];
  const blobs = await readBlobs(cwd, ids, signal);
  const lossy = entries.filter((e) => [e.oldId, e.newId].some((id) => id !== ZERO_ID && !isUtf8(blobs.get(id)!)));
  if (lossy.length === 0) return gitText(args, { cwd, signal });
  const text = await gitText([...args, '--', '.', ...lossy.map((e) => `:(exclude,literal)${e.path}`)], { cwd, signal });
  const side = (id: string, mode: string) => (id === ZERO_ID || /^0+$/.test(mode) ? null : { id, mode, bytes: blobs.get(id)! });
  return text + lossy.map((e) => binaryPatch(e.path, side(e.oldId, e.oldMode), side(e.newId, e.newMode))).join('');
}
