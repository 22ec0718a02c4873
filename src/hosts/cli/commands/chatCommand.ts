import { randomUUID } from 'node:crypto';
import { InvalidArgumentError } from 'commander';
import type * as Config from '../../../core/config';
import type * as ChatDomain from '../../../core/domains/chat';
import type * as Indexed from '../../../core/repos/indexed';
import { AppError, type ChatMode } from '../../../shared/contract';
import { printable } from '../../../shared/printable';
import type { CliContext, CommandModule } from '../context';

const MODES: readonly ChatMode[] = ['auto', 'bm25', 'semantic', 'hybrid'];

function parseMode(value: string): ChatMode {
  if (!(MODES as readonly string[]).includes(value)) throw new InvalidArgumentError(`"${value}" is not a mode; use one of ${MODES.join(', ')}.`);
  return value as ChatMode;
}

function parseConversation(value: string): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(value)) throw new InvalidArgumentError(`"${value}" is not a conversation id; use the id printed after an answer (1–64 letters, digits, - or _).`);
  return value;
}

/** `cra chat --list`: the repository's conversations, newest first (id, messages, last message, title). */
async function listConversations(ctx: CliContext, repoId: string, json: boolean): Promise<void> {
  const { conversations } = await ctx.core().handlers['chat/history']({ repoId });
  if (json) return void process.stdout.write(`${JSON.stringify({ conversations })}\n`);
  if (conversations.length === 0) return void process.stderr.write('No conversations yet: ask with cra chat "<question>".\n');
  for (const c of conversations) process.stdout.write(`${c.conversationId}  ${String(c.messages).padStart(3)} messages  ${c.updatedAt}  ${printable(c.title)}\n`);
}

/** `cra chat --export ID`: the conversation as markdown on stdout (`--json`: with its title and file name). */
async function exportConversation(ctx: CliContext, repoId: string, conversationId: string, json: boolean): Promise<void> {
  const exported = await ctx.core().handlers['chat/export']({ repoId, conversationId });
  process.stdout.write(json ? `${JSON.stringify(exported)}\n` : exported.markdown);
}

interface ChatOptions {
  repo: string;
  conversation?: string;
  mode: ChatMode;
  json?: boolean;
  list?: boolean;
  export?: string;
}

/**
 * `cra chat`: one question as a chat run. Human output: the sources on stderr first, the answer
 * streamed to stdout, the citations on stderr at the end. `--json`: one JSON object a line
 * (`sources` first, each `token`, `done`). Ctrl+C stops the answer (the turn is stored as
 * cancelled). `--list` and `--export ID` show the repository's conversations instead of asking.
 */
export const registerChat: CommandModule = (program, ctx) => {
  program
    .command('chat')
    .description('ask a question about an indexed repository: sources first, then the answer streamed with [path:lines] citations')
    .argument('[question]', 'the question')
    .option('--repo <path>', 'the indexed repository', '.')
    .option('--conversation <id>', 'continue this conversation (its id is printed at the end of each answer; --list shows them)', parseConversation)
    .option('--mode <mode>', `retrieval: ${MODES.join(' | ')} (auto asks the routing model)`, parseMode, 'auto' as ChatMode)
    .option('--json', 'print JSON lines: {type:"sources", sources, trace}, {type:"token", text}…, {type:"done", message}')
    .option('--list', "list the repository's conversations (id, messages, last message, title) instead of asking")
    .option('--export <id>', 'print a conversation as markdown instead of asking', parseConversation)
    .action(async (question: string | undefined, opts: ChatOptions) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when the command runs (see context.ts)
      const { loadUserConfigCached } = require('../../../core/config') as typeof Config;
      loadUserConfigCached(ctx.dataDir());
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when the command runs
      const { findIndexedRepo } = require('../../../core/repos/indexed') as typeof Indexed;
      const asks = [question !== undefined, Boolean(opts.list), opts.export !== undefined].filter(Boolean).length;
      if (asks !== 1) throw new AppError('VALIDATION', 'Give a question, or --list, or --export <id> (one of them): cra chat "<question>" --repo <path>.');
      const repo = findIndexedRepo(ctx.dataDir(), opts.repo);
      try {
        if (opts.list) return await listConversations(ctx, repo.id, Boolean(opts.json));
        if (opts.export !== undefined) return await exportConversation(ctx, repo.id, opts.export, Boolean(opts.json));
        await askQuestion(ctx, repo, question as string, opts);
      } finally {
        await ctx.core().dispose();
      }
    });
};

/** Ask one question and stream its turn: sources (stderr, or the first JSON line), tokens, done. */
async function askQuestion(ctx: CliContext, repo: { id: string; name: string }, question: string, opts: ChatOptions): Promise<void> {
  const core = ctx.core();
  if (opts.conversation) {
    const { messages } = await core.handlers['chat/history']({ repoId: repo.id, conversationId: opts.conversation });
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when the command runs
    const { unknownConversation } = require('../../../core/domains/chat') as typeof ChatDomain;
    if (messages.length === 0) throw unknownConversation(opts.conversation, repo.name);
  }
  const out = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
  // Events are matched by conversation, whose id is made here: the first events of the run may
  // come before chat/ask returns the run id.
  const conversationId = opts.conversation ?? `c-${randomUUID()}`;
  let runId: string | undefined;
  const stops = [
    core.events.on('chat/sources', (e) => {
      if (e.conversationId !== conversationId) return;
      if (opts.json) return out({ type: 'sources', sources: e.sources, trace: e.trace });
      const route = e.trace.route;
      process.stderr.write(`Route: ${route.mode} “${printable(route.query)}”${route.reason ? ` (fallback: ${printable(route.reason)})` : ''} · ${e.trace.intent} · ${e.trace.searchMode}\n`);
      for (const note of e.trace.notes) process.stderr.write(`Note: ${printable(note)}\n`);
      process.stderr.write(`Sources: ${e.sources.map((s) => `${printable(s.path)}:${s.startLine}-${s.endLine}`).join('  ') || '(none)'}\n\n`);
    }),
    core.events.on('chat/token', (e) => {
      if (e.conversationId !== conversationId) return;
      if (opts.json) out({ type: 'token', text: e.text });
      else process.stdout.write(printable(e.text, { multiline: true }));
    }),
    core.events.on('chat/done', (e) => {
      if (e.conversationId !== conversationId) return;
      if (opts.json) return out({ type: 'done', message: e.message });
      process.stdout.write('\n');
      const flagged = (e.message.citations ?? []).filter((c) => c.status === 'unverified');
      if (flagged.length) process.stderr.write(`Unverified citations (no such file or lines): ${flagged.map((c) => printable(c.text)).join(' ')}\n`);
      process.stderr.write(`Conversation: ${e.message.conversationId}\n`);
    }),
  ];
  const stop = () => {
    if (runId) core.runs.cancel(runId);
  };
  process.once('SIGINT', stop);
  try {
    const started = await core.handlers['chat/ask']({ repoId: repo.id, question, conversationId, mode: opts.mode });
    runId = started.runId;
    await core.runs.wait(runId);
  } finally {
    process.removeListener('SIGINT', stop);
    stops.forEach((s) => s());
  }
}
