import { InvalidArgumentError } from 'commander';
import type { ChatMode } from '../../../shared/contract';
import { AppError } from '../../../shared/contract/errors';
import { printable } from '../../../shared/printable';
import { followRun, type FollowedRun, type RunEvent } from '../../../shared/runStream';
import { SEARCH_MODES } from '../../../shared/vocabulary';
import type { EngineClient } from '../../../core/app/contract/client';
import { openRepo, type CliContext, type CommandModule } from '../context';
import { detectLanguageAhead, type LanguageAhead } from '../languageAhead';


/** A --mode; `bm25`, the old name of `keyword` (search's name), is accepted for one release, with a note. */
function parseMode(value: string): ChatMode {
  if (value === 'bm25') {
    process.stderr.write('Note: --mode bm25 is now --mode keyword (as in cra search); bm25 is accepted until the next release.\n');
    return 'keyword';
  }
  // Any other word goes to the contract, which refuses an unknown mode naming the allowed ones.
  return value as ChatMode;
}

function parseLanguage(value: string): string {
  if (!/^(auto|[a-z]{2,3})$/.test(value)) throw new InvalidArgumentError(`"${value}" is not a language; use auto or an ISO 639-1 code such as en or pl.`);
  return value;
}

export function parsePipeline(value: string): string {
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(value)) throw new InvalidArgumentError(`"${value}" is not a pipeline name; use the name: of a pipeline (resources/pipelines or the repository's .cleanroom/pipelines).`);
  return value;
}

function parseConversation(value: string): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(value)) throw new InvalidArgumentError(`"${value}" is not a conversation id; use the id printed after an answer (1–64 letters, digits, - or _).`);
  return value;
}

/**
 * Work chat/ask would do first, done while the question's language is still being detected: the
 * chat domain's modules and the pipelines (`chat/pipelines` reads and checks them; chat/ask then
 * finds them in the engine's cache). A failure is left for chat/ask to report.
 */
async function warmChat(engine: EngineClient, repoId: string): Promise<void> {
  await engine.request('chat/pipelines', { repoId }).catch(() => undefined);
}

/** What `cra chat` shows instead of asking: the conversation list, or one conversation as markdown. */
interface BrowseOptions {
  list?: boolean;
  export?: string;
  json?: boolean;
}

/** `--list` (id, messages, last message, title; newest first) or `--export ID` (markdown on stdout); `--json` for either. */
async function browseConversations(ctx: CliContext, repoId: string, opts: BrowseOptions): Promise<void> {
  const engine = ctx.client();
  try {
    if (opts.export !== undefined) {
      const exported = await engine.request('chat/export', { repoId, conversationId: opts.export });
      // The markdown holds the model's answers as they came: escapes (window title, OSC 52, clear screen) are shown, not run.
      return void process.stdout.write(opts.json ? `${JSON.stringify(exported)}\n` : printable(exported.markdown, { multiline: true }));
    }
    const { conversations } = await engine.request('chat/history', { repoId });
    if (opts.json) return void process.stdout.write(`${JSON.stringify({ conversations })}\n`);
    if (conversations.length === 0) return void process.stderr.write('No conversations yet: ask with cra chat "<question>".\n');
    for (const c of conversations) process.stdout.write(`${c.conversationId}  ${String(c.messages).padStart(3)} messages  ${c.updatedAt}  ${printable(c.title)}\n`);
  } finally {
    await engine.dispose();
  }
}

/** NOT_FOUND before any model call when `--conversation` names a conversation the repository does not have. */
async function requireConversation(ctx: CliContext, repo: { id: string; name: string }, conversationId: string): Promise<void> {
  const { messages } = await ctx.client().request('chat/history', { repoId: repo.id, conversationId });
  if (messages.length > 0) return;
  await ctx.client().dispose();
  // The words of the chat domain's NOT_FOUND (chat/rename, chat/delete…), which chat/history has no reason to refuse.
  throw new AppError('NOT_FOUND', `${repo.name} has no conversation ${conversationId}; the Chat page lists them (cra chat --list --repo <path>).`);
}

/**
 * `cra chat`: one question as a chat run. Human output: the sources on stderr first, the answer
 * streamed to stdout, the citations on stderr at the end. `--json`: one JSON object a line
 * (`sources`, each `token`, `done`). Ctrl+C stops the answer (the turn is stored as cancelled).
 * `--list` and `--export ID` show the repository's conversations instead of asking.
 */
export const registerChat: CommandModule = (program, ctx) => {
  let ahead: LanguageAhead | undefined;
  const chat = program
    .command('chat')
    .description('ask a question about an indexed repository: sources first, then the answer streamed with [path:lines] citations')
    .argument('[question]', 'the question')
    .option('--list', "list the repository's conversations (id, messages, last message, title) instead of asking")
    .option('--export <id>', 'print a conversation as markdown instead of asking', parseConversation)
    .option('--repo <path>', 'the indexed repository', '.')
    .option('--conversation <id>', 'continue this conversation (its id is printed at the end of each answer)', parseConversation)
    .option('--mode <mode>', `retrieval: ${SEARCH_MODES.join(' | ')} (auto asks the routing model)`, parseMode, 'auto' as ChatMode)
    .option('--language <code>', 'the question\'s language: auto (detected offline) or an ISO 639-1 code; other than English, the question is translated in and the answer back', parseLanguage)
    .option('--pipeline <name>', "the chat pipeline (default: the conversation's, else the repository's default chosen on the Chat page or with cra pipelines --set-default, else default; a repository may add its own in .cleanroom/pipelines/*.yaml)", parsePipeline)
    .option('--json', 'print JSON lines: {type:"sources", sources, trace, round?} (again per follow-up round), {type:"token", text}…, {type:"done", message}')
    .action(async (question: string | undefined, opts: BrowseOptions & { repo: string; conversation?: string; mode: ChatMode; language?: string; pipeline?: string; json?: boolean }) => {
      if ([question !== undefined, Boolean(opts.list), opts.export !== undefined].filter(Boolean).length !== 1) {
        ahead?.cancel();
        throw new AppError('VALIDATION', 'Give a question, or --list, or --export <id> (one of them): cra chat "<question>" --repo <path>.');
      }
      let opened: Awaited<ReturnType<typeof openRepo>>;
      try {
        opened = await openRepo(ctx, opts.repo, { config: true });
        if (question !== undefined && opts.conversation) await requireConversation(ctx, opened.repo, opts.conversation);
      } catch (error) {
        ahead?.cancel();
        throw error;
      }
      const { engine, repo } = opened;
      if (question === undefined) return browseConversations(ctx, repo.id, opts);
      const detected = await ahead?.useWait(() => warmChat(engine, repo.id));

      const out = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
      let runId: string | undefined;
      // Notes printed with the sources are not printed again at the end.
      const noted = new Set<string>();
      const show = (e: RunEvent) => {
        if (e.event === 'chat/sources') {
          const p = e.payload;
          if (opts.json) return out({ type: 'sources', sources: p.sources, trace: p.trace, ...(p.round ? { round: p.round } : {}) });
          const route = p.trace.route;
          const round = p.trace.rounds?.at(-1);
          if (p.round) process.stderr.write(`Follow-up ${p.round}: the model asked for “${printable(round?.request ?? '')}”\n`);
          else process.stderr.write(`Route: ${route.mode} “${printable(route.query)}”${route.reason ? ` (fallback: ${printable(route.reason)})` : ''} · ${p.trace.intent} · ${round?.searchMode ?? p.trace.searchMode}\n`);
          for (const note of p.round ? (round?.notes ?? []) : p.trace.notes) {
            noted.add(p.round ? `Round ${p.round}: ${note}` : note);
            process.stderr.write(`Note: ${printable(note)}\n`);
          }
          process.stderr.write(`Sources: ${p.sources.map((s) => `${printable(s.path)}:${s.startLine}-${s.endLine}`).join('  ') || '(none)'}\n\n`);
        } else if (e.event === 'chat/token') {
          if (opts.json) out({ type: 'token', text: e.payload.text });
          else process.stdout.write(printable(e.payload.text, { multiline: true }));
        } else if (e.event === 'chat/done') {
          const message = e.payload.message;
          if (opts.json) return out({ type: 'done', message });
          process.stdout.write('\n');
          const trace = message.trace;
          const later = (trace?.notes ?? []).filter((n) => !noted.has(n));
          for (const note of later) process.stderr.write(`Note: ${printable(note)}\n`);
          if (trace?.calls?.length) process.stderr.write(`Model calls: ${trace.calls.map((c) => `${c.purpose}${c.callId !== undefined ? ` #${c.callId}` : ''}`).join(', ')}\n`);
          const flagged = (message.citations ?? []).filter((c) => c.status === 'unverified');
          if (flagged.length) process.stderr.write(`Unverified citations (no such file or lines): ${flagged.map((c) => printable(c.text)).join(' ')}\n`);
          process.stderr.write(`Conversation: ${message.conversationId}\n`);
        }
      };
      const stop = () => {
        if (runId) engine.cancel(runId);
      };
      process.once('SIGINT', stop);
      let followed: FollowedRun | undefined;
      try {
        // A new conversation is named by the engine; the run's events so far come from its log, then live.
        const started = await engine.request('chat/ask', { repoId: repo.id, question, ...(opts.conversation ? { conversationId: opts.conversation } : {}), mode: opts.mode, ...(opts.language ? { language: opts.language } : {}), ...(detected ? { detected } : {}), ...(opts.pipeline ? { pipeline: opts.pipeline } : {}) });
        runId = started.run.runId;
        followed = await followRun({ attach: (id, afterSeq) => engine.request('run/attach', { runId: id, afterSeq }), subscribe: (event, listener) => engine.on(event, listener) }, runId, show);
        await engine.wait(runId);
      } finally {
        process.removeListener('SIGINT', stop);
        followed?.stop();
        await engine.dispose();
      }
    });
  // The question's language is detected before the engine loads: the light tables here, the normal ones on another thread while it loads (languageAhead.ts).
  ctx.beforeLoad(chat, (command) => {
    const [question] = command.args as Array<string | undefined>;
    const { language } = command.opts<{ language?: string }>();
    if (question !== undefined && (language === undefined || language === 'auto')) ahead = detectLanguageAhead(question);
  });
};
