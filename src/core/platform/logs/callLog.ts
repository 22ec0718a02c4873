import type { Statement } from 'better-sqlite3';
import type { Db } from '../db/open';
import { openRawDatabase } from '../db/raw';
import type { CallLogger, ModelCallRecord } from '../llm/types';

/**
 * Appends model calls to a raw database's `model_calls` table: one INSERT when the call ends, so
 * a row is never half-written. Works on any raw DB (user-level or a repository's).
 */
export class RawCallLog implements CallLogger {
  /** Prepared once: a retrieval run appends hundreds of calls (bench/pipeline.bench.ts). */
  private insert: Statement | undefined;

  constructor(private readonly db: Db) {}

  /** Insert one finished call; returns its row id. */
  append(r: ModelCallRecord): number {
    const info = (this.insert ??= this.db
      .prepare(
        `insert into model_calls (run_id, stage, role, provider, base_url, model, system, prompt, response, params_json,
           prompt_tokens, completion_tokens, latency_ms, error_code, error, created_at)
         values (@runId, @stage, @role, @provider, @baseUrl, @model, @system, @prompt, @response, @params,
           @promptTokens, @completionTokens, @latencyMs, @errorCode, @error, @createdAt)`,
      ))
      .run({
        runId: r.runId ?? null,
        stage: r.stage ?? null,
        role: r.role ?? null,
        provider: r.provider,
        baseUrl: r.baseUrl,
        model: r.model,
        system: r.system ?? null,
        prompt: r.prompt,
        response: r.response ?? null,
        params: JSON.stringify(r.params),
        promptTokens: r.promptTokens ?? null,
        completionTokens: r.completionTokens ?? null,
        latencyMs: r.latencyMs,
        errorCode: r.errorCode ?? null,
        error: r.error ?? null,
        createdAt: r.createdAt,
      });
    return Number(info.lastInsertRowid);
  }
}

/** A lazily opened user-level raw DB and its call log; `close` on engine shutdown. */
export class UserCallLog implements CallLogger {
  private db: Db | undefined;
  private log: RawCallLog | undefined;

  constructor(private readonly file: string) {}

  /** The open database (created with its schema on first use). */
  database(): Db {
    if (!this.db) {
      this.db = openRawDatabase(this.file);
      this.log = new RawCallLog(this.db);
    }
    return this.db;
  }

  append(record: ModelCallRecord): number {
    this.database();
    return (this.log as RawCallLog).append(record);
  }

  close(): void {
    this.db?.close();
    this.db = undefined;
    this.log = undefined;
  }
}
