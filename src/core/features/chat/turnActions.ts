import type { ChatRoute, ChatTraceHistory, ChatTraceLanguage, ChatTraceRound, ChatTraceStep, RouteMode } from '../../../shared/contract/chat';
import { roundScore } from '../../knowledge/search/details';
import { summarizeEvidence } from './budget';
import type { TurnCalls } from './calls';
import { searchRound } from './chatSearch';
import { rerankRound, searchLimit } from './rerank';
import { ThinkingFilter } from './citations';
import { historyForPrompt } from './history';
import { AnswerCap } from './limits';
import { detectLanguage, languageName, translateSystem } from './language';
import type { PipelineAction, PipelineSettings } from './pipeline';
import { AnswerStreamFilter, missingStatement } from './protocol';
import { packEvidence } from './evidencePack';
import { edgeOf, evidenceCost, expandGraph, mergeEvidence, seedsOf, trimEvidence, type ChatEvidence, type GraphNode } from './retrieve';
import { chosenRoute, detectIntent, FALLBACK_MODE, INTENT_PLANS, routeQuestion, type IntentPlan } from './router';
import { ANSWER_SYSTEM, answerPrompt, overviewOf } from './prompts';
import type { TurnDeps, TurnInput } from './turnTypes';

/*
 * The actions of a chat pipeline's steps (docs/design.md, Chat pipelines). Each reads and
 * writes the turn's state and returns an outcome; the pipeline's transitions pick the next step.
 * Helper calls degrade instead of failing the turn — a failed translation, history summary, query
 * expansion or evidence summary is noted in the trace and the turn goes on without it; only the
 * answer call (and a stop) ends a turn early.
 */

/** What a turn knows while its steps run. */
export interface TurnState {
  questionId: number;
  question: string;
  /** The question in the model's language (set by translate_in_if_needed). */
  questionEn?: string;
  language?: ChatTraceLanguage;
  historyText?: string;
  history?: ChatTraceHistory;
  plan?: IntentPlan;
  route?: ChatRoute;
  steps: ChatTraceStep[];
  rounds: ChatTraceRound[];
  /** The answer model's follow-up requests, in order. */
  requests: string[];
  notes: string[];
  seeds?: GraphNode[];
  /** Search hits past the seeds: not walked, sent as excerpts at most. */
  extraHits?: GraphNode[];
  nodes?: GraphNode[];
  /** Neighbours the node cap left out, best first. */
  spare?: GraphNode[];
  /** Nodes and files past them that the last round's pack left out for the budget. */
  left?: GraphNode[];
  /** Every body fetched so far (all rounds). */
  pool: ChatEvidence[];
  /** The evidence sent: the pool, or what fits, or what the summary covers. */
  evidence: ChatEvidence[];
  evidenceSummary?: string;
  /** The final answer in the model's language. */
  answer: string;
  /** What the person has been shown (streamed), cut at `cap`. */
  shown: string;
  /** The answer's size limit ([chat].max_answer_kb). */
  cap: AnswerCap;
  /** The round whose sources were last emitted. */
  sourcesRound: number;
  exhausted?: boolean;
  /** The repository overview sent with a SUMMARY question. */
  overview?: string;
  /** Summaries of the summary tree sent ahead of the evidence. */
  summaries?: Array<{ level: number; files: string[]; score: number; text: string }>;
}

const SETTING_MODES: Record<Exclude<PipelineSettings['retrieval']['mode'], 'auto'>, RouteMode> = { keyword: 'BM25', bm25: 'BM25', semantic: 'SEMANTIC', semantic_rerank: 'SEMANTIC_RERANK', hybrid: 'HYBRID' };

/** The actions a pipeline's steps name; each returns its outcome. */
export class TurnActions {
  private readonly settings: PipelineSettings;

  constructor(
    private readonly deps: TurnDeps,
    private readonly input: TurnInput,
    private readonly state: TurnState,
    private readonly calls: TurnCalls,
    private readonly emit: { sources(round: number): void; token(text: string): void },
  ) {
    this.settings = deps.pipeline.settings;
  }

  /** Run one action. */
  run(action: PipelineAction): Promise<string> {
    const table: Record<PipelineAction, () => Promise<string> | string> = {
      translate_in_if_needed: () => this.translateIn(),
      load_conversation_history: () => this.loadHistory(),
      route_question: () => this.route(),
      fetch_more_context: () => this.fetchMore(),
      expand_dependency_tree: () => this.expandTree(),
      fetch_node_texts: () => this.fetchTexts(),
      check_context_budget: () => this.checkBudget(),
      summarize_context: () => this.summarize(),
      trim_context: () => this.trim(),
      answer: () => this.answer(),
      loop_guard: () => this.loopGuard(),
      finalize_missing: () => this.finalizeMissing(),
      finalize: () => this.finalize(),
    };
    return Promise.resolve(table[action]());
  }

  private get questionEn(): string {
    return this.state.questionEn ?? this.state.question;
  }

  private async translateIn(): Promise<string> {
    const target = this.settings.model_language;
    const chosen = this.input.language && this.input.language !== 'auto' ? this.input.language : undefined;
    const found = chosen ? { language: chosen, confidence: 1 } : (this.input.detected ?? detectLanguage(this.state.question));
    const translate = found.language !== null && found.language !== target;
    const language: ChatTraceLanguage = { language: found.language, source: chosen ? 'chosen' : 'detected', confidence: found.confidence, translated: false, question: this.state.question };
    if (translate) {
      try {
        const text = await this.calls.text('translate-in', this.state.question, { stage: 'chat', system: translateSystem(target), signal: this.input.signal });
        if (text === '') throw new Error('the translation was empty');
        Object.assign(language, { translated: true, question: text });
        this.state.questionEn = text;
      } catch (error) {
        if (this.input.signal.aborted) throw error;
        this.state.notes.push(`Translating the question from ${languageName(found.language!)} failed (${error instanceof Error ? error.message : String(error)}); it was used as asked.`);
      }
    }
    this.state.language = language;
    return 'ok';
  }

  private async loadHistory(): Promise<string> {
    const history = await historyForPrompt({
      store: this.deps.store,
      conversationId: this.input.conversationId,
      beforeId: this.state.questionId,
      question: this.questionEn,
      budgetTokens: this.settings.max_history_tokens,
      calls: this.calls,
      signal: this.input.signal,
    });
    this.state.historyText = history.text;
    this.state.history = history.trace;
    return 'ok';
  }

  /** Intent (by pattern) with the pipeline's per-intent overrides and caps, then the route. */
  private async route(): Promise<string> {
    const detected = detectIntent(this.questionEn);
    const override = this.settings.graph.intents[detected.intent] ?? {};
    const base = { ...INTENT_PLANS[detected.intent], ...override, ...(override.max_nodes !== undefined ? { maxNodes: override.max_nodes } : {}) };
    const { max_nodes: _ignored, ...plan } = base as typeof base & { max_nodes?: number };
    const depth = Math.min(plan.depth, this.settings.graph.max_depth ?? Infinity);
    const maxNodes = Math.min(plan.maxNodes, this.settings.graph.max_nodes ?? Infinity);
    // The intent's edges, within the pipeline's allow-list.
    const edges = this.settings.graph.edge_allowlist.filter((e) => !plan.edges || plan.edges.includes(e));
    this.state.plan = { intent: detected.intent, seeds: plan.seeds, decay: plan.decay, depth, maxNodes, edges };
    const question = this.questionEn;
    let route: ChatRoute;
    if (this.input.mode !== 'auto') route = chosenRoute(this.input.mode, question);
    else if (this.settings.retrieval.mode !== 'auto') {
      route = { mode: SETTING_MODES[this.settings.retrieval.mode], query: question, source: 'chosen', thinking: false };
      this.state.notes.push(`The retrieval mode ${this.settings.retrieval.mode} is set by the pipeline "${this.deps.pipeline.name}".`);
    } else {
      route = await routeQuestion((prompt, options) => this.calls.complete('routing', prompt, options).then((text) => ({ text })), question, this.input.signal);
      if (route.source === 'fallback') this.state.notes.push(`The router's reply broke the protocol (${route.reason}): ${FALLBACK_MODE} search with the question ran instead.`);
    }
    this.state.route = route;
    return route.mode === 'DIRECT' ? 'direct' : 'retrieve';
  }

  private async expandQuery(query: string): Promise<string[]> {
    const n = this.settings.retrieval.query_expansion;
    if (n === 0) return [query];
    try {
      const reply = await this.calls.text('query-expansion', `Search query: ${query}\n\nWrite ${n} other phrasings of this search query for a code repository, one per line, nothing else.`, {
        stage: 'routing',
        system: 'You rephrase search queries about code. Keep identifiers exactly as written.',
        signal: this.input.signal,
      });
      const lines = reply
        .split('\n')
        .map((l) => l.replace(/^\s*(?:[-*•]|\d+[.)])\s*/, '').trim())
        .filter((l) => l !== '' && l.toLowerCase() !== query.toLowerCase());
      return [query, ...[...new Set(lines)].slice(0, n)];
    } catch (error) {
      if (this.input.signal.aborted) throw error;
      this.state.notes.push(`Query expansion failed (${error instanceof Error ? error.message : String(error)}); the query was searched alone.`);
      return [query];
    }
  }

  private async fetchMore(): Promise<string> {
    const round = this.state.rounds.length;
    const request = round > 0 ? this.state.requests.at(-1) : undefined;
    const route = this.state.route!;
    const mode: RouteMode = route.mode === 'DIRECT' ? FALLBACK_MODE : route.mode;
    const query = request ?? route.query;
    const queries = round === 0 ? await this.expandQuery(query) : [query];
    // Summaries are looked up beside the search (embedding the question may take a while).
    const summaries = round === 0 ? this.fetchSummaries(query) : Promise.resolve();
    const plan = this.state.plan!;
    // Hits past the seeds are searched only to be sent as excerpts.
    const wanted = plan.seeds + (this.settings.excerpts.lines > 0 ? this.settings.excerpts.extra_hits : 0);
    const [found] = await Promise.all([searchRound(this.deps.kb, { mode, queries, retrieval: this.settings.retrieval, embedder: this.deps.embedder, limit: searchLimit(this.settings.retrieval.rerank, wanted), signal: this.input.signal }), summaries]);
    const rerank = await rerankRound(found, { kb: this.deps.kb, embedder: this.deps.embedder, calls: this.calls, query, settings: this.settings.retrieval.rerank, seeds: wanted, signal: this.input.signal });
    if (found.results.length === 0) found.notes.push(`No file matched “${query}”.`);
    const hits = seedsOf(this.deps.kb, found.results);
    this.state.seeds = hits.slice(0, plan.seeds);
    this.state.extraHits = hits.slice(plan.seeds);
    this.state.nodes = this.state.seeds;
    this.state.spare = [];
    this.state.rounds.push({
      round,
      ...(request !== undefined ? { request } : {}),
      mode,
      searchMode: found.searchMode,
      ...(found.fusion ? { fusion: found.fusion } : {}),
      queries,
      hits: found.results.map((r) => ({ path: r.path, score: roundScore(r.score, 3) })),
      ...(rerank ? { rerank } : {}),
      expansion: { seeds: this.state.seeds.length, added: 0, depth: plan.depth, decay: plan.decay, maxNodes: plan.maxNodes, edges: [...(plan.edges ?? this.settings.graph.edge_allowlist)], byEdge: {} },
      fetched: 0,
      evidenceTokens: 0,
      budgetTokens: this.settings.max_context_tokens,
      budget: 'fits',
      notes: found.notes,
    });
    return 'ok';
  }

  /**
   * Summaries of the summary tree near the query (docs/design.md, Summary tree), ahead of the
   * detailed evidence. No tree, another embedder's tree or a query that cannot be embedded: skipped,
   * with a note where it says something.
   */
  private async fetchSummaries(query: string): Promise<void> {
    const { top_k: limit, min_score: minScore } = this.settings.summaries;
    const store = this.deps.summaries;
    if (!store || limit === 0) return;
    const built = store.embedderId();
    if (built === null) return;
    if (built !== this.deps.embedder.id) {
      this.state.notes.push(`The summary tree was built with ${built}, and questions are embedded with ${this.deps.embedder.id}: summaries were skipped (rebuild them with cra summarize).`);
      return;
    }
    try {
      const [vector] = await this.deps.embedder.embed([query], this.input.signal);
      const near = store.nearest(vector!, built, { minScore, limit });
      this.state.summaries = near.map((s) => ({ level: s.level, files: s.files, score: Math.round(s.score * 1000) / 1000, text: s.text }));
    } catch (error) {
      if (this.input.signal.aborted) throw error;
      this.state.notes.push(`Summaries were skipped: the question could not be embedded (${error instanceof Error ? error.message : String(error)}).`);
    }
  }

  private get round(): ChatTraceRound {
    return this.state.rounds.at(-1)!;
  }

  private expandTree(): string {
    const plan = this.state.plan!;
    const { nodes, spare } = expandGraph(this.deps.kb, this.state.seeds ?? [], { depth: plan.depth, decay: plan.decay, maxNodes: plan.maxNodes, edges: plan.edges ?? this.settings.graph.edge_allowlist });
    this.state.nodes = nodes;
    this.state.spare = spare;
    const byEdge: Record<string, number> = {};
    for (const n of nodes) {
      if (n.role !== 'neighbour') continue;
      const edge = n.why.map(edgeOf).find((e) => e !== undefined);
      if (edge) byEdge[edge] = (byEdge[edge] ?? 0) + 1;
    }
    Object.assign(this.round.expansion, { added: nodes.length - (this.state.seeds?.length ?? 0), byEdge });
    return 'ok';
  }

  private fetchTexts(): string {
    const { excerpts } = this.settings;
    const candidates = excerpts.lines > 0 ? [...(this.state.extraHits ?? []), ...(this.state.spare ?? []).slice(0, excerpts.extra_neighbours)] : [];
    const packed = packEvidence(this.deps.kb, { nodes: this.state.nodes ?? [], candidates, bodies: this.settings.node_text_fetch_top_n, budgetTokens: this.settings.max_context_tokens, excerpts });
    const fetched = packed.evidence;
    this.state.left = packed.left;
    this.round.fetched = fetched.length;
    const excerptCount = fetched.filter((e) => e.excerpt).length;
    if (excerptCount > 0) this.round.excerpts = excerptCount;
    if (packed.packed && packed.left.length > 0) this.round.notes.push(`${packed.left.length} more file${packed.left.length === 1 ? '' : 's'} of the evidence graph left out: no room for an excerpt in the budget (${this.settings.max_context_tokens} tokens).`);
    this.state.pool = mergeEvidence(this.state.pool, fetched);
    this.state.evidence = this.state.pool;
    this.state.evidenceSummary = undefined;
    this.round.evidenceTokens = this.state.pool.reduce((n, e) => n + evidenceCost(e), 0);
    // Sources go out as soon as they are known, before any budget call or log write: the person sees them first.
    this.emitSources();
    this.decideAll(fetched.map((e) => ({ e, decision: 'included', reasons: e.why })));
    return 'ok';
  }

  /** Emit the sources of the current round once. */
  private emitSources(): void {
    const round = Math.max(0, this.state.rounds.length - 1);
    if (this.state.sourcesRound >= round) return;
    this.state.sourcesRound = round;
    this.emit.sources(round);
  }

  private checkBudget(): string {
    return this.state.pool.reduce((n, e) => n + evidenceCost(e), 0) <= this.settings.max_context_tokens ? 'ok' : 'over_limit';
  }

  private async summarize(): Promise<string> {
    try {
      const done = await summarizeEvidence({ calls: this.calls, question: this.questionEn, evidence: this.state.pool, budgetTokens: this.settings.max_context_tokens, signal: this.input.signal });
      this.state.evidence = done.covered;
      this.state.evidenceSummary = done.summary;
      Object.assign(this.round, { budget: 'summarized', summary: done.summary, evidenceTokens: Math.ceil(done.summary.length / 4) });
      this.round.notes.push(`The evidence (${this.state.pool.length} pieces) was over the budget of ${this.settings.max_context_tokens} tokens and was condensed for the question.`, ...done.notes);
      return 'ok';
    } catch (error) {
      if (this.input.signal.aborted) throw error;
      this.round.notes.push(`Condensing the evidence failed (${error instanceof Error ? error.message : String(error)}); the best evidence that fits was sent.`);
      return this.trim();
    }
  }

  /** Log evidence decisions of this round (the Logs page and `cra export` read them), in one write where the sink can. */
  private decideAll(items: ReadonlyArray<{ e: ChatEvidence; decision: string; reasons: ChatEvidence['why'] }>): void {
    const sink = this.deps.decisions;
    if (!sink || items.length === 0) return;
    const records = items.map(({ e, decision, reasons }) => ({ runId: this.input.runId, stage: 'chat', subjectKind: 'file' as const, subject: `${e.path}:${e.startLine}-${e.endLine}`, tier: e.role, decision, reasons, judgment: { round: this.round.round } }));
    if (sink.recordAll) sink.recordAll(records);
    else for (const record of records) sink.record(record);
  }

  private trim(): string {
    const { evidence, tokens, left } = trimEvidence(this.state.pool, this.settings.max_context_tokens);
    const budget = this.settings.max_context_tokens;
    this.decideAll(this.state.pool.filter((e) => !evidence.includes(e)).map((e) => ({ e, decision: 'excluded', reasons: [{ kind: 'over-budget' as const, detail: { tokens: evidenceCost(e), left: Math.max(0, budget - tokens) } }] })));
    this.state.evidence = evidence;
    this.state.evidenceSummary = undefined;
    Object.assign(this.round, { budget: 'trimmed', evidenceTokens: tokens });
    if (left > 0) this.round.notes.push(`${left} more file${left === 1 ? '' : 's'} left out by the evidence budget (${this.settings.max_context_tokens} tokens).`);
    return 'ok';
  }

  private get translated(): boolean {
    return this.state.language?.translated ?? false;
  }

  private async answer(): Promise<string> {
    const round = Math.max(0, this.state.rounds.length - 1);
    this.emitSources();
    this.calls.round = round;
    const prompt = answerPrompt(this.questionEn, this.state.evidence, this.state.historyText ?? '', {
      ...(this.state.evidenceSummary !== undefined ? { summary: this.state.evidenceSummary } : {}),
      requests: this.state.requests,
      ...(this.state.plan?.intent === 'SUMMARY' ? { overview: this.overview() } : {}),
      ...(this.state.summaries?.length ? { summaries: this.state.summaries } : {}),
    });
    const thinking = new ThinkingFilter();
    const protocol = new AnswerStreamFilter();
    let text = '';
    // Kept to the answer's limit too: a translated turn sends it to the translation call.
    const kept = new AnswerCap(this.state.cap.maxKb);
    // A translated turn shows the translation, not the model-language answer.
    const show = (t: string) => {
      text += kept.take(t);
      if (!this.translated) this.emit.token(t);
    };
    for await (const delta of this.calls.stream('answer', prompt, { stage: 'chat', system: ANSWER_SYSTEM, signal: this.input.signal })) show(protocol.push(thinking.push(delta)));
    show(protocol.push(thinking.end()));
    show(protocol.end());
    if (protocol.kind === 'request') {
      this.state.requests.push(protocol.request || this.questionEn);
      return 'request';
    }
    if (protocol.kind === 'unmarked' && text.trim() !== '') this.state.notes.push('The answer had no [Answer:] marker; it was taken as the answer.');
    this.state.answer = text;
    return 'answer';
  }

  /** The repository overview for a SUMMARY question, once per turn (the trace says it was sent). */
  private overview(): string {
    if (this.state.overview === undefined) {
      this.state.overview = overviewOf(this.deps.kb);
      this.state.notes.push('SUMMARY: the repository overview (size, languages, most connected files) was sent ahead of the evidence.');
    }
    return this.state.overview;
  }

  private loopGuard(): string {
    // Every request after the first answer call is one loop; more than max_turn_loops ends the turn.
    if (this.state.requests.length > this.settings.max_turn_loops) return 'exceeded';
    this.calls.round = this.state.rounds.length;
    return 'ok';
  }

  private finalizeMissing(): string {
    this.state.exhausted = true;
    this.state.answer = missingStatement(this.state.requests, this.settings.max_turn_loops);
    this.state.notes.push(`The answer model asked for more data ${this.state.requests.length} times; the cap is ${this.settings.max_turn_loops} follow-up searches, so the turn says what is missing.`);
    if (!this.translated) this.emit.token(this.state.answer);
    return 'ok';
  }

  private async finalize(): Promise<string> {
    this.emitSources();
    if (!this.translated || this.state.answer.trim() === '') {
      // A pipeline that never answered (no answer step) still ends with what it has.
      if (this.state.shown === '' && this.state.answer !== '') this.emit.token(this.state.answer);
      return 'done';
    }
    const to = this.state.language!.language!;
    const thinking = new ThinkingFilter();
    try {
      for await (const delta of this.calls.stream('translate-out', this.state.answer, { stage: 'chat', system: translateSystem(to), signal: this.input.signal })) this.emit.token(thinking.push(delta));
      this.emit.token(thinking.end());
    } catch (error) {
      if (this.input.signal.aborted || this.state.shown !== '') throw error;
      this.state.notes.push(`Translating the answer into ${languageName(to)} failed (${error instanceof Error ? error.message : String(error)}); it is shown in ${languageName(this.settings.model_language)}.`);
      this.emit.token(this.state.answer);
    }
    return 'done';
  }
}
