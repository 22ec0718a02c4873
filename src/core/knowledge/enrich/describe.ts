import { z } from 'zod';
import type { KnowledgeBase } from '../kb/knowledgeBase';
import type { FileRecord } from '../kb/types';
import { parseJsonObject } from '../../platform/llm/replyJson';

/** What the enrich model must say about a file. */
export const fileDescriptionSchema = z.object({
  purpose: z.string().trim().min(1).max(400),
  domain: z.string().trim().min(1).max(80),
  module: z.string().trim().min(1).max(120),
  concepts: z.array(z.string().trim().min(1).max(80)).max(12),
});

/** One file's description. */
export type FileDescription = z.infer<typeof fileDescriptionSchema>;

/** The JSON schema sent as structured output (zod validates what comes back). */
export const FILE_DESCRIPTION_JSON_SCHEMA = {
  type: 'object',
  properties: {
    purpose: { type: 'string', minLength: 1, maxLength: 400 },
    domain: { type: 'string', minLength: 1, maxLength: 80 },
    module: { type: 'string', minLength: 1, maxLength: 120 },
    concepts: { type: 'array', maxItems: 12, items: { type: 'string', minLength: 1, maxLength: 80 } },
  },
  required: ['purpose', 'domain', 'module', 'concepts'],
} as const;

export const ENRICH_SYSTEM =
  'You describe one source file of a repository for a code search index. Reply with JSON only: {"purpose": one sentence on what the file does, "domain": the problem area in one or two words (e.g. "http", "authentication", "templating"), "module": the component it belongs to (e.g. "routing", "request parsing"), "concepts": up to 8 short domain terms it deals with}.';

/** Characters of a file's text shown to the model (its head: imports, docstring, first definitions). */
const SOURCE_CHARS = 3000;

/** The prompt for one file: path, language, module docstring, its definitions and the head of its text. */
export function describePrompt(kb: KnowledgeBase, file: FileRecord, text: string | null): string {
  const symbols = kb
    .getSymbolsForFile(file.id)
    .filter((s) => s.parentId === null || s.kind === 'method')
    .slice(0, 30)
    .map((s) => `  ${s.signature || s.qualifiedName}`);
  const doc = kb.getDocstringsForFile(file.id).moduleDoc?.trim();
  const head = text === null ? '' : text.length > SOURCE_CHARS ? `${text.slice(0, SOURCE_CHARS)}\n… (${text.length - SOURCE_CHARS} more characters)` : text;
  return [`File: ${file.path}`, `Language: ${file.language}`, doc ? `Docstring: ${doc.slice(0, 400)}` : '', symbols.length ? `Defines:\n${symbols.join('\n')}` : '', head ? `Source:\n${head}` : ''].filter(Boolean).join('\n\n');
}

/**
 * The first balanced JSON object of a reply, parsed: thinking blocks, a ```json fence and prose
 * before or after it are tolerated (small models add "Hope this helps!" after the object).
 */
export function firstJsonObject(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  return parseJsonObject(text);
}

/** Parse and validate a reply: the description, or what was wrong (said back to the model on the retry). */
export function parseDescription(text: string): { ok: true; value: FileDescription } | { ok: false; error: string } {
  const json = firstJsonObject(text);
  if (!json.ok) return json;
  const result = fileDescriptionSchema.safeParse(json.value);
  if (!result.success) return { ok: false, error: result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ') };
  return { ok: true, value: { ...result.data, concepts: [...new Set(result.data.concepts.map((c) => c.toLowerCase()))] } };
}
