import type { EnrichSummary } from '../../../shared/contract/enrich';
import type { Db } from '../../platform/db/open';
import type { KnowledgeBase } from '../kb/knowledgeBase';
import type { LlmClient } from '../../platform/llm/client';
import type { CallLogger } from '../../platform/llm/types';
import { throwIfAborted } from '../../platform/runtime/runs';
import { describePrompt, ENRICH_SYSTEM, FILE_DESCRIPTION_JSON_SCHEMA, parseDescription, type FileDescription } from './describe';

/** What {@link enrichRepository} needs. */
export interface EnrichOptions {
  kb: KnowledgeBase;
  /** The repository's raw DB: descriptions go to its `file_enrichment`, calls to its log. */
  raw: Db;
  llm: LlmClient;
  log?: CallLogger;
  runId?: string;
  /** The file's current text (null when unreadable: the model sees its definitions only). */
  readSource(path: string): string | null;
  signal?: AbortSignal;
  progress?(done: number, total: number, path: string): void;
}

/** One stored description. */
export interface StoredDescription extends FileDescription {
  path: string;
  contentHash: string;
  model: string;
}

/** The descriptions stored for a repository, keyed by `path\0contentHash`. */
export function storedDescriptions(raw: Db): Map<string, StoredDescription> {
  const rows = raw.prepare('select path, content_hash as contentHash, purpose, domain, module, concepts_json as conceptsJson, model from file_enrichment order by id').all() as Array<Omit<StoredDescription, 'concepts'> & { conceptsJson: string }>;
  return new Map(rows.map(({ conceptsJson, ...r }) => [`${r.path}\0${r.contentHash}`, { ...r, concepts: JSON.parse(conceptsJson) as string[] }]));
}

/**
 * Describe every indexed file with the model of the `enrich` stage: purpose, domain, module and
 * concepts through a JSON-schema call, read tolerantly (prose after the object is fine), validated,
 * and retried once with the validation error. Resumable: a file already described at its current
 * content (path and content hash) is skipped, and each description is stored as soon as it comes,
 * so a cancelled or failed run keeps what it did. A file whose replies are invalid twice is counted
 * and left for the next run; a call that fails (server down) stops the run.
 */
export async function enrichRepository(options: EnrichOptions): Promise<EnrichSummary> {
  const started = Date.now();
  const model = options.llm.resolve({ stage: 'enrich' }).model;
  const files = options.kb.getFiles().filter((f) => f.contentHash !== null);
  const done = storedDescriptions(options.raw);
  const todo = files.filter((f) => !done.has(`${f.path}\0${f.contentHash}`));
  const insert = options.raw.prepare(
    `insert or replace into file_enrichment (path, content_hash, purpose, domain, module, concepts_json, model, model_call_id, run_id, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  let enriched = 0;
  let failed = 0;
  options.progress?.(0, todo.length, '');
  for (const [i, file] of todo.entries()) {
    throwIfAborted(options.signal);
    let prompt = describePrompt(options.kb, file, options.readSource(file.path));
    let stored = false;
    for (let attempt = 1; attempt <= 2 && !stored; attempt++) {
      const reply = await options.llm.complete(prompt, {
        stage: 'enrich',
        system: ENRICH_SYSTEM,
        format: FILE_DESCRIPTION_JSON_SCHEMA as unknown as Record<string, unknown>,
        think: false,
        temperature: 0,
        maxTokens: 400,
        runId: options.runId,
        log: options.log,
        signal: options.signal,
      });
      const parsed = parseDescription(reply.text);
      if (parsed.ok) {
        const d = parsed.value;
        insert.run(file.path, file.contentHash, d.purpose, d.domain, d.module, JSON.stringify(d.concepts), reply.model, reply.callId ?? null, options.runId ?? null, new Date().toISOString());
        stored = true;
      } else {
        // One retry that names the mistake; small models fix a named mistake more often than an unnamed one.
        prompt = `${prompt}\n\nYour previous reply was invalid (${parsed.error}). Reply again with the JSON object only.`;
      }
    }
    if (stored) enriched++;
    else failed++;
    options.progress?.(i + 1, todo.length, file.path);
  }
  return { files: files.length, enriched, alreadyDone: files.length - todo.length, failed, model, durationMs: Date.now() - started };
}

/**
 * Promote the stored descriptions into the index's `file_metadata` (what scope tier 4 reads): for
 * every indexed file described at its current content, its domain, module, concepts and purpose
 * (as the summary), in one transaction. Files without a current description lose stale metadata.
 * `curated` is a writable connection to the repository's curated index. Returns the files promoted.
 */
export function promoteEnrichment(curated: Db, raw: Db): number {
  const stored = storedDescriptions(raw);
  const files = curated.prepare('select id, path, content_hash as contentHash from files where skip_reason is null and content_hash is not null').all() as Array<{ id: number; path: string; contentHash: string }>;
  const upsert = curated.prepare(
    `insert into file_metadata (file_id, domain, module, concepts_json, summary, updated_at) values (?, ?, ?, ?, ?, ?)
     on conflict(file_id) do update set domain = excluded.domain, module = excluded.module, concepts_json = excluded.concepts_json, summary = excluded.summary, updated_at = excluded.updated_at`,
  );
  const remove = curated.prepare('delete from file_metadata where file_id = ?');
  let promoted = 0;
  const now = new Date().toISOString();
  curated.transaction(() => {
    for (const f of files) {
      const d = stored.get(`${f.path}\0${f.contentHash}`);
      if (!d) {
        remove.run(f.id);
        continue;
      }
      upsert.run(f.id, d.domain, d.module, JSON.stringify(d.concepts), d.purpose, now);
      promoted++;
    }
  })();
  return promoted;
}
