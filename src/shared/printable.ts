/**
 * Text from outside (file names, symbols, commit messages, model output) made safe to print on a
 * terminal: a file named `a\x1b[31m.py` or with a newline in its name must not recolour the
 * terminal, move the cursor or break a table. Control characters (C0, DEL, C1) and the Unicode
 * bidirectional overrides are shown as escapes (`\x1b`, `\n`, `\u{202e}`). Only human output goes
 * through it: JSON output stays exact.
 */

const ALL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const KEEP_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * `text` with every control character escaped. With `multiline`, newlines and tabs are kept (a
 * prompt or a model's answer printed whole); carriage returns and escape sequences never are.
 */
export function printable(text: string, options: { multiline?: boolean } = {}): string {
  return text.replace(options.multiline ? KEEP_LINES : ALL, (c) => NAMED[c] ?? escapeCode(c.charCodeAt(0)));
}

function escapeCode(code: number): string {
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
}
