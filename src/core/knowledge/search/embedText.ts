import { wordsForEmbedding } from './embedder';

/**
 * Longest text sent to the embedder, in characters. The embedded model's CPU cost grows about
 * linearly with the text (docs/search.md; bench/embed.bench.ts measures it), so the text is a
 * compact description of the chunk rather than its body.
 */
export const EMBED_TEXT_CHARS = 128;

/** What {@link chunkEmbeddingText} reads of a chunk: the chunk row plus its main symbol (if any). */
export interface ChunkTextFields {
  path: string;
  kind: string;
  symbol_names: string;
  text: string;
  /** Signature of the first symbol starting inside the chunk. */
  signature: string | null;
  docstring: string | null;
}

// The page query belongs to the index's reader (core/kb); re-exported for bench/embed.bench.ts.
export { EMBED_CHUNKS_PAGE_SQL } from '../kb/searchIndex';

/**
 * THE text recipe for chunk vectors (one place, so the eval can compare recipes): the words of
 * the path, the symbol names and the main symbol's signature (each word once), then the first
 * sentence of its docstring, then the first words of the body, cut at {@link EMBED_TEXT_CHARS}
 * on a word boundary. Identifiers are split into words (`parseHTTPHeaders` → `parse HTTP Headers`),
 * which a general-text model understands better.
 */
export function chunkEmbeddingText(chunk: ChunkTextFields): string {
  const seen = new Set<string>();
  const names: string[] = [];
  for (const word of identifierWords(`${chunk.path} ${chunk.symbol_names} ${chunk.signature ?? ''}`)) {
    const key = word.toLowerCase();
    if (key === 'def' || key === 'function' || key === 'class' || seen.has(key)) continue;
    seen.add(key);
    names.push(word);
  }
  const parts = [names.join(' ')];
  const doc = firstSentence(chunk.docstring ?? '');
  if (doc) parts.push(doc);
  let text = parts.join('. ');
  if (text.length < EMBED_TEXT_CHARS) {
    const body = skipDocstring(identifierWords(bodyWithoutSignature(chunk.text, chunk.signature).slice(0, EMBED_TEXT_CHARS * 6)), chunk.docstring);
    if (body.length > 0) text = `${text}. ${body.join(' ')}`;
  }
  return cutAtWord(text, EMBED_TEXT_CHARS);
}

/** Letters-and-digits words of a text, identifiers split (`_pyio.BufferedWriter` → `pyio`, `Buffered`, `Writer`). */
function identifierWords(text: string): string[] {
  return wordsForEmbedding(text)
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w.length > 0);
}

/** Body words after the leading run of docstring words (a Python docstring opens the body; its sentence is already in). */
function skipDocstring(words: string[], docstring: string | null): string[] {
  if (!docstring) return words;
  const doc = new Set(identifierWords(docstring));
  let i = 0;
  while (i < words.length && doc.has(words[i]!)) i++;
  return words.slice(i);
}

function firstSentence(docstring: string): string {
  const flat = docstring.replace(/\s+/g, ' ').trim();
  const end = flat.search(/[.!?](\s|$)/);
  return (end >= 0 ? flat.slice(0, end) : flat).trim();
}

/** The chunk's source after its first line when that line is the signature (already in the text). */
function bodyWithoutSignature(text: string, signature: string | null): string {
  const trimmed = text.trimStart();
  if (!signature) return trimmed;
  const newline = trimmed.indexOf('\n');
  const first = newline < 0 ? trimmed : trimmed.slice(0, newline);
  const head = signature.split('\n')[0]!.trim().slice(0, 20);
  return head && first.includes(head) ? (newline < 0 ? '' : trimmed.slice(newline + 1)) : trimmed;
}

function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max + 1);
  const space = cut.lastIndexOf(' ');
  return (space > max / 2 ? cut.slice(0, space) : text.slice(0, max)).trim();
}
