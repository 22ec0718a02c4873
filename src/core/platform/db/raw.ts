import type { Db, Migration } from './open';
import { openDatabase } from './open';

/**
 * The raw database: an append-only log. Every model call, every retrieval decision, task runs,
 * orchestrator runs and their passes, archived session files. Nothing here is ever updated except
 * a run's end state and a conversation's title; rows are never deleted by the app, except the
 * messages of a conversation the person deletes (its model calls stay in the log).
 */
export const RAW_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'model calls, retrieval decisions, task runs, orchestrator runs/passes, session archives',
    up: (db) =>
      db.exec(`
        create table task_runs (
          id text primary key,               -- the run id (also the session id)
          mode text not null,                -- index, search, retrieve, chat, plan, solve, eval, models ...
          task text,
          repo_path text,
          config_json text,                  -- effective budget/model config, for reproducibility
          status text not null default 'running',
          success integer,
          started_at text not null,
          finished_at text,
          error text
        );
        create table model_calls (
          id integer primary key,
          run_id text,                       -- task_runs.id when the call belongs to a run
          stage text,                        -- task_analysis, scope, precision_pass1, chat, ...
          role text,                         -- coding, reasoning, embedding
          provider text not null,            -- ollama, openai_compat
          base_url text,
          model text not null,
          system text,
          prompt text not null,
          response text,
          params_json text,                  -- temperature, num_ctx, max tokens ...
          prompt_tokens integer,
          completion_tokens integer,
          latency_ms integer,
          error_code text,
          error text,
          created_at text not null
        );
        create index model_calls_run on model_calls(run_id);
        create index model_calls_stage on model_calls(stage);
        create index model_calls_model on model_calls(model);
        create index model_calls_created on model_calls(created_at);
        create table retrieval_decisions (
          id integer primary key,
          run_id text not null,
          stage text not null,
          subject_kind text not null,        -- file, symbol, pair
          subject text not null,             -- path, qualified symbol, "a|b"
          tier text,                         -- seed, dependency, co_change, metadata ...
          decision text not null,            -- included, excluded, primary, supporting, type_context
          reason text,
          model_call_id integer references model_calls(id),
          created_at text not null
        );
        create index retrieval_decisions_run on retrieval_decisions(run_id);
        create table orchestrator_runs (
          id text primary key,
          task text not null,
          total_parts integer,
          total_steps integer,
          status text not null default 'running', -- running, complete, partial, failed
          started_at text not null,
          finished_at text
        );
        create table orchestrator_passes (
          id integer primary key,
          orchestrator_run_id text not null references orchestrator_runs(id),
          pass_type text not null,           -- meta_plan, part_plan, step_implement, adjustment
          sequence integer not null,
          task_run_id text references task_runs(id),
          created_at text not null
        );
        create table session_archives (
          id integer primary key,
          run_id text not null,
          archived_at text not null,
          bytes blob not null
        );
      `),
  },
  {
    version: 2,
    description: 'task_runs: title, typed subject, result and error code of each run (RunRegistry writes them)',
    up: (db) =>
      db.exec(`
        alter table task_runs add column title text;
        alter table task_runs add column subject_json text;  -- the run's subject: {repoId}, {model}, {repoPath}
        alter table task_runs add column result_json text;   -- what a run that ended well returned
        alter table task_runs add column error_code text;
        create index task_runs_started on task_runs(started_at);
      `),
  },
  {
    version: 3,
    description: 'chat_messages: the questions and answers of chat conversations (append-only), with sources, citations and trace',
    up: (db) =>
      db.exec(`
        create table chat_messages (
          id integer primary key,
          conversation_id text not null,
          role text not null,                -- user, assistant
          content text not null,             -- an answer without thinking blocks
          run_id text,                       -- task_runs.id of the chat run that answered
          status text,                       -- assistant: done, failed, cancelled
          error text,
          sources_json text,
          citations_json text,
          trace_json text,
          created_at text not null
        );
        create index chat_messages_conversation on chat_messages(conversation_id, id);
      `),
  },
  {
    version: 4,
    description: 'orchestrator_runs/passes: the solve run (repository, mode, base commit, outcome) and each pass (part, step, status, output, diff, validation)',
    up: (db) =>
      db.exec(`
        alter table orchestrator_runs add column repo_id text;
        alter table orchestrator_runs add column task_run_id text;        -- the solve run (task_runs.id) that started it
        alter table orchestrator_runs add column mode text;               -- plan (one implement pass), orchestrated
        alter table orchestrator_runs add column base_commit text;        -- the user's HEAD at the start
        alter table orchestrator_runs add column start_commit text;       -- the worktree's first commit (HEAD, or the uncommitted changes on it)
        alter table orchestrator_runs add column base_hashes_json text;   -- {path: sha256 of the file's content at the start}, for review
        alter table orchestrator_runs add column input_json text;         -- the plan or meta-plan given, the options
        alter table orchestrator_runs add column outcome_json text;
        alter table orchestrator_runs add column cumulative_diff text;
        alter table orchestrator_runs add column progress_json text;      -- the final parts and steps (the session is archived at the end)
        alter table orchestrator_runs add column error text;
        alter table orchestrator_runs add column worktree_path text;      -- the checkout now in use (its owner marker tells a live run from a killed one)
        alter table orchestrator_passes add column part_id text;
        alter table orchestrator_passes add column step_id text;
        alter table orchestrator_passes add column attempt integer;
        alter table orchestrator_passes add column status text;
        alter table orchestrator_passes add column output_json text;
        alter table orchestrator_passes add column diff text;
        alter table orchestrator_passes add column validation_json text;
        alter table orchestrator_passes add column error text;
        alter table orchestrator_passes add column finished_at text;
        create index orchestrator_passes_run on orchestrator_passes(orchestrator_run_id, sequence);
        create index orchestrator_runs_repo on orchestrator_runs(repo_id, started_at);
      `),
  },
  {
    version: 5,
    description: 'file_enrichment: per-file purpose, domain, module and concepts by the enrich model, keyed by path and content hash (cra enrich)',
    up: (db) =>
      db.exec(`
        create table file_enrichment (
          id integer primary key,
          path text not null,
          content_hash text not null,        -- the file's content when it was described: a changed file is described again
          purpose text not null,
          domain text not null,
          module text not null,
          concepts_json text not null,
          model text not null,
          model_call_id integer,             -- model_calls.id of the call that described it
          run_id text,
          created_at text not null,
          unique (path, content_hash)
        );
      `),
  },
  {
    version: 6,
    description: 'chat_history_summaries: rolling query-aware summaries of a conversation (append-only; the newest is the pointer)',
    up: (db) =>
      db.exec(`
        create table chat_history_summaries (
          id integer primary key,
          conversation_id text not null,
          summary text not null,
          through_message_id integer not null, -- chat_messages.id of the last message the summary covers
          question text,                       -- the question it was conditioned on
          model_call_id integer,               -- model_calls.id of the summarizing call
          created_at text not null
        );
        create index chat_history_summaries_conversation on chat_history_summaries(conversation_id, id);
      `),
  },
  {
    version: 7,
    description: 'orchestrator_passes.context_json: the context package retrieval handed the pass (the Context inspector opens it)',
    up: (db) => db.exec('alter table orchestrator_passes add column context_json text;'),
  },
  {
    version: 8,
    description: 'chat_conversations: a title a person gave a conversation (its first question otherwise)',
    up: (db) =>
      db.exec(`
        create table chat_conversations (
          conversation_id text primary key,
          title text not null,
          renamed_at text not null
        );
      `),
  },
];

/** Open (creating or upgrading) a raw database file. */
export function openRawDatabase(file: string): Db {
  return openDatabase(file, { migrations: RAW_MIGRATIONS });
}
