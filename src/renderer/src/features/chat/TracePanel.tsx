import { formatReasons, type ChatSource, type ChatTrace } from '../../../../shared/contract';
import type { ModelCallSummary } from '../../../../shared/contract/logs';
import { useNavStore } from '../../app/store/navStore';
import { useLogsStore } from '../logs/store';
import type { Turn } from './reducers';
import { useChatStore } from './store';
import { growingFields, RawValue, Row } from './traceSections';

/** Trace fields this panel shows in their own rows; any other field the engine adds shows under "More". */
const KNOWN_FIELDS = new Set(['route', 'intent', 'searchMode', 'notes', 'expansion', 'evidenceTokens', 'budgetTokens', 'queries']);

/** A trace as the engine sent it: the known fields may be missing or grow; extra fields are kept. */
type LooseTrace = Partial<ChatTrace> & Record<string, unknown>;

/** The one-line summary of a trace: route, intent, search, and what differs from the usual (a fallback, a pipeline of the repository, a translation). */
/** The router's mode in product words, and the search mode it implies. */
const ROUTES: Record<string, { words: string; searches?: string }> = {
  BM25: { words: 'keyword search', searches: 'keyword' },
  SEMANTIC: { words: 'semantic search', searches: 'semantic' },
  SEMANTIC_RERANK: { words: 'semantic search, re-ranked', searches: 'semantic' },
  HYBRID: { words: 'hybrid search', searches: 'hybrid' },
  DIRECT: { words: 'answered without searching' },
};

/** What kind of question the router took it for, in words. */
const INTENTS: Record<string, string> = {
  SUMMARY: 'an overview question',
  SEARCH: 'a where-is question',
  FLOW: 'a how-does-it-flow question',
  DATA_LIFECYCLE: 'a data question',
  MIGRATION: 'a migration question',
  EXPLAIN: 'an explain question',
  IMPACT: 'an impact question',
};

function summaryParts(trace: LooseTrace): string[] {
  const route = trace.route;
  const routed = route?.mode ? ROUTES[route.mode] : undefined;
  const pipeline = trace.pipeline?.name;
  const language = trace.language;
  return [
    routed?.words ?? route?.mode,
    trace.intent ? (INTENTS[trace.intent] ?? trace.intent.toLowerCase()) : null,
    // The search mode only when it is not the one the route implies (e.g. semantic fell back to keyword).
    trace.searchMode && trace.searchMode !== routed?.searches ? `searched by ${trace.searchMode}` : null,
    route?.source === 'fallback' ? 'router fell back' : null,
    pipeline && pipeline !== 'default' ? `pipeline ${pipeline}` : null,
    language?.translated && language.language ? `translated from ${language.language}` : null,
  ].filter((part): part is string => Boolean(part));
}

/** Open one model call in the Logs page, with its run's calls around it. */
function openInLogs(runId: string, callId: number): void {
  void useLogsStore.getState().openCall({ repoId: useChatStore.getState().repoId, callId, runId });
  useNavStore.getState().go('logs');
}

/**
 * "How this answer was made": the route and its reply, the queries, every hit with its score and
 * why, graph expansion, the evidence budget, notes, the turn's model calls (each opens in Logs),
 * and whatever else the engine's trace carries.
 */
export function TracePanel(props: { turn: Turn; openAt(path: string, line: number, endLine: number): void }) {
  const { turn } = props;
  const trace = (turn.trace ?? {}) as LooseTrace;
  const route = trace.route;
  const loadCalls = useChatStore((s) => s.loadCalls);
  const grown = growingFields(trace, (callId) => turn.runId && openInLogs(turn.runId, callId));
  const extra = Object.entries(trace).filter(([key, value]) => !KNOWN_FIELDS.has(key) && !grown.handled.has(key) && value !== undefined);
  const queries = Array.isArray(trace.queries) ? trace.queries.map(String) : route ? [route.query] : [];
  return (
    <details
      className="chat-trace"
      data-testid="chat-trace"
      onToggle={(e) => {
        if ((e.currentTarget as HTMLDetailsElement).open && turn.runId && !grown.handled.has('calls')) void loadCalls(turn.runId);
      }}
    >
      <summary>
        How this answer was made <span className="muted">· {summaryParts(trace).join(' · ')}</span>
      </summary>
      <dl className="chat-trace-grid">
        {route ? (
          <>
            <dt>Route</dt>
            <dd>
              {route.mode} <span className="muted">({route.source === 'chosen' ? 'mode chosen' : route.source === 'model' ? 'the routing model chose it' : `fallback: ${route.reason ?? 'no reason'}`}{route.thinking ? '; thinking removed' : ''})</span>
              {route.raw ? <pre className="chat-trace-pre" aria-label="Router reply">{route.raw}</pre> : null}
            </dd>
          </>
        ) : null}
        {trace.intent ? (
          <>
            <dt>Intent</dt>
            <dd>
              {trace.intent.toLowerCase()} <span className="muted">(sets retrieval depth and graph expansion)</span>
            </dd>
            <dt>Search</dt>
            <dd>{trace.searchMode ?? '?'}</dd>
          </>
        ) : null}
        <dt>Queries</dt>
        <dd>{queries.length ? queries.map((q) => <div key={q} className="mono">“{q}”</div>) : <span className="muted">none</span>}</dd>
        <dt>Hits</dt>
        <dd>
          <HitsTable sources={turn.sources ?? []} openAt={props.openAt} />
        </dd>
        {trace.expansion ? (
          <>
            <dt>Graph</dt>
            <dd>
              {trace.expansion.seeds} seeds → {trace.expansion.added} neighbours (depth {trace.expansion.depth}, decay {trace.expansion.decay})
            </dd>
          </>
        ) : null}
        {trace.evidenceTokens !== undefined ? (
          <>
            <dt>Evidence</dt>
            <dd>
              {trace.evidenceTokens} of {trace.budgetTokens ?? '?'} tokens
            </dd>
          </>
        ) : null}
        {trace.notes?.length ? (
          <>
            <dt>Notes</dt>
            <dd>
              <ul>
                {trace.notes.map((n) => (
                  <li key={n}>{n}</li>
                ))}
              </ul>
            </dd>
          </>
        ) : null}
        {grown.rows}
        {/* The calls come from the log when the trace does not list them itself. */}
        {grown.handled.has('calls') ? null : (
          <Row name="Model calls">
            <CallsList runId={turn.runId} />
          </Row>
        )}
        {extra.map(([key, value]) => (
          <Row key={key} name={key}>
            <RawValue value={value} />
          </Row>
        ))}
      </dl>
    </details>
  );
}

function HitsTable(props: { sources: readonly ChatSource[]; openAt(path: string, line: number, endLine: number): void }) {
  if (props.sources.length === 0) return <span className="muted">none</span>;
  return (
    <table className="grid chat-hits" aria-label="Hits">
      <tbody>
        {props.sources.map((s) => (
          <tr key={`${s.path}:${s.startLine}`}>
            <td>
              <button type="button" className="link mono" onClick={() => props.openAt(s.path, s.startLine, s.endLine)}>
                {s.path}:{s.startLine}-{s.endLine}
              </button>
            </td>
            <td>{s.excerpt ? `${s.role}, excerpt` : s.role}</td>
            <td className="num">{s.score}</td>
            <td className="muted">{formatReasons(s.why, { compact: true })}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function CallsList(props: { runId: string | null }) {
  const entry = useChatStore((s) => (props.runId ? s.callsByRun[props.runId] : undefined));
  if (!props.runId) return <span className="muted">not started yet</span>;
  if (!entry) return <span className="muted">reading the log…</span>;
  if ('error' in entry) return <span className="error-text">{entry.error.message}</span>;
  if (entry.calls.length === 0) return <span className="muted">none logged yet</span>;
  return (
    <ul className="chat-calls">
      {entry.calls.map((c) => (
        <li key={c.id}>
          <CallLink runId={props.runId as string} call={c} />
        </li>
      ))}
    </ul>
  );
}

function CallLink(props: { runId: string; call: ModelCallSummary }) {
  const c = props.call;
  return (
    <button type="button" className="link" title="Open this call in Logs" onClick={() => openInLogs(props.runId, c.id)}>
      #{c.id} {c.stage ?? 'call'} · {c.model} · {c.promptTokens ?? '?'}→{c.completionTokens ?? '?'} tokens · {c.latencyMs ?? '?'} ms{c.errorCode ? ` · ${c.errorCode}` : ''}
    </button>
  );
}
