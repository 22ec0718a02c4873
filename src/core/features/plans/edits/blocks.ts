/**
 * Search/replace edit blocks as coding models write them (the aider form):
 *
 *     path/to/file.py
 *     ```python
 *     <<<<<<< SEARCH
 *     exact lines of the file
 *     =======
 *     the lines that replace them
 *     >>>>>>> REPLACE
 *     ```
 *
 * An empty SEARCH creates a new file with the REPLACE text.
 */

/** One edit: the file, the exact text to find and its replacement. */
export interface EditBlock {
  /** 1-based position in the reply (errors name it). */
  index: number;
  /** The path as the model wrote it (confined before any use). */
  path: string;
  search: string;
  replace: string;
}

/** The blocks of a reply, or what makes the reply unreadable. */
export type EditParse = { ok: true; blocks: EditBlock[] } | { ok: false; reason: string };

const START = /^\s*<{5,9} ?SEARCH\s*$/;
const MIDDLE = /^\s*={5,9}\s*$/;
const END = /^\s*>{5,9} ?REPLACE\s*$/;
const FENCE = /^\s*(```|~~~)/;

/** The file path a model put on the line before a block: backticks, bold, `File:` and a trailing colon removed. */
function cleanPath(line: string): string {
  return line
    .trim()
    .replace(/^#+\s*/, '')
    .replace(/^(file|path)\s*:\s*/i, '')
    .replace(/^[*`'"]+|[*`'"]+$/g, '')
    .replace(/:$/, '')
    .trim();
}

/**
 * Read every search/replace block of a model's reply (thinking blocks ignored). The path is the
 * nearest non-empty line before `<<<<<<< SEARCH` that is not a code fence. A reply with no block,
 * a block without a path line, or one not closed by `=======` and `>>>>>>> REPLACE` is unreadable
 * as a whole: a half-read reply is never applied.
 */
export function parseEditBlocks(text: string): EditParse {
  const lines = text.replace(/<think>[\s\S]*?<\/think>/gi, '').replace(/\r\n/g, '\n').split('\n');
  const blocks: EditBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!START.test(lines[i]!)) continue;
    const index = blocks.length + 1;
    let back = i - 1;
    while (back >= 0 && (lines[back]!.trim() === '' || FENCE.test(lines[back]!))) back--;
    const path = back >= 0 ? cleanPath(lines[back]!) : '';
    if (!path || START.test(lines[back] ?? '') || END.test(lines[back] ?? '')) return { ok: false, reason: `edit block ${index} has no file path on the line before <<<<<<< SEARCH` };
    const search: string[] = [];
    const replace: string[] = [];
    let j = i + 1;
    while (j < lines.length && !MIDDLE.test(lines[j]!)) search.push(lines[j++]!);
    if (j >= lines.length) return { ok: false, reason: `edit block ${index} (${path}) has no ======= line after its SEARCH text` };
    j++;
    while (j < lines.length && !END.test(lines[j]!)) {
      if (START.test(lines[j]!) || MIDDLE.test(lines[j]!)) return { ok: false, reason: `edit block ${index} (${path}) is not closed by >>>>>>> REPLACE` };
      replace.push(lines[j++]!);
    }
    if (j >= lines.length) return { ok: false, reason: `edit block ${index} (${path}) is not closed by >>>>>>> REPLACE` };
    blocks.push({ index, path, search: search.join('\n'), replace: replace.join('\n') });
    i = j;
  }
  if (blocks.length === 0) return { ok: false, reason: 'the reply has no edit block (path line, <<<<<<< SEARCH, =======, >>>>>>> REPLACE)' };
  return { ok: true, blocks };
}
