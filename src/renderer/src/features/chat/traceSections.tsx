import type { ReactNode } from 'react';
import { stepLabel } from '../../lib/productWords';

/*
 * Sections of "How this answer was made" for the parts of a turn's trace that the engine adds as it
 * grows (retrieval rounds, each model call with its prompt, steps, language, history, the follow-up
 * loop, the pipeline). Each reads its field loosely: a field that is missing, or not in the shape
 * expected, falls back to the generic view, so an older page never breaks on a newer engine.
 */

/** One model call of a turn as the trace may carry it (`callId` opens it in Logs). */
export interface TraceCallView {
  purpose?: string;
  stage?: string;
  callId?: number;
  model?: string;
  system?: string;
  prompt?: string;
  reply?: string;
  promptTokens?: number;
  completionTokens?: number;
  latencyMs?: number;
  error?: string;
  round?: number;
}

interface RoundView {
  round?: number;
  request?: string;
  mode?: string;
  searchMode?: string;
  fusion?: string;
  queries?: string[];
  hits?: Array<{ path: string; score: number }>;
  expansion?: { seeds?: number; added?: number; depth?: number; decay?: number; byEdge?: Record<string, number> };
  fetched?: number;
  excerpts?: number;
  evidenceTokens?: number;
  budgetTokens?: number;
  budget?: string;
  summary?: string;
  notes?: string[];
}

const isList = (value: unknown): value is Array<Record<string, unknown>> => Array.isArray(value) && value.every((v) => typeof v === 'object' && v !== null);
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A row of the trace grid. */
export function Row(props: { name: string; children: ReactNode }) {
  return (
    <>
      <dt>{props.name}</dt>
      <dd>{props.children}</dd>
    </>
  );
}

/** A field shown as it came (text, or JSON). */
export function RawValue(props: { value: unknown }) {
  const text = typeof props.value === 'string' ? props.value : JSON.stringify(props.value, null, 2);
  return <pre className="chat-trace-pre">{text.length > 4000 ? `${text.slice(0, 4000)}…` : text}</pre>;
}

/** The model calls the trace lists, each with its prompt and reply one click away; a logged one opens in Logs. */
export function TraceCalls(props: { calls: TraceCallView[]; onOpen(callId: number): void }) {
  return (
    <ul className="chat-calls">
      {props.calls.map((c, i) => (
        <li key={`${c.callId ?? 'x'}-${i}`}>
          <details>
            <summary>
              <span title={c.purpose ?? c.stage}>{stepLabel(c.purpose ?? c.stage ?? 'call')}</span> · {c.model ?? '?'} · {c.promptTokens ?? '?'}→{c.completionTokens ?? '?'} tokens · {c.latencyMs ?? '?'} ms
              {c.error ? <span className="error-text"> · {c.error}</span> : null}
              {c.callId !== undefined ? (
                <>
                  {' '}
                  <button type="button" className="link" onClick={() => props.onOpen(c.callId as number)}>
                    #{c.callId} in Logs
                  </button>
                </>
              ) : null}
            </summary>
            {c.system ? <pre className="chat-trace-pre" aria-label="System">{c.system}</pre> : null}
            {c.prompt ? <pre className="chat-trace-pre" aria-label="Prompt">{c.prompt}</pre> : null}
            {c.reply !== undefined ? <pre className="chat-trace-pre" aria-label="Reply">{c.reply || '(empty)'}</pre> : null}
          </details>
        </li>
      ))}
    </ul>
  );
}

function RoundBlock(props: { round: RoundView }) {
  const r = props.round;
  const edges = Object.entries(r.expansion?.byEdge ?? {}).map(([edge, n]) => `${edge} ${n}`);
  return (
    <div className="chat-trace-round" data-testid="chat-trace-round">
      <strong>
        Round {r.round ?? '?'}
        {r.request ? ` · asked for “${r.request}”` : ''}
      </strong>{' '}
      <span className="muted">
        {[r.mode, r.searchMode, r.fusion, r.budget ? `budget ${r.budget}` : null].filter(Boolean).join(' · ')}
        {r.evidenceTokens !== undefined ? ` · ${r.evidenceTokens} of ${r.budgetTokens ?? '?'} tokens` : ''}
        {r.fetched !== undefined ? ` · ${r.fetched - (r.excerpts ?? 0)} bodies` : ''}
        {r.excerpts ? ` + ${r.excerpts} excerpts` : ''}
      </span>
      {r.queries?.length ? <div className="mono">{r.queries.map((q) => `“${q}”`).join('  ')}</div> : null}
      {r.hits?.length ? <div className="mono muted">{r.hits.map((h) => `${h.path} ${h.score}`).join(' · ')}</div> : null}
      {r.expansion ? (
        <div className="muted">
          graph: {r.expansion.seeds ?? '?'} seeds → {r.expansion.added ?? '?'} neighbours{edges.length ? ` (${edges.join(', ')})` : ''}
        </div>
      ) : null}
      {r.summary ? <pre className="chat-trace-pre" aria-label="Evidence summary">{r.summary}</pre> : null}
      {r.notes?.map((n) => (
        <div key={n} className="muted">
          {n}
        </div>
      ))}
    </div>
  );
}

/**
 * The rows for the trace fields the engine adds beyond route, search and expansion: returns the
 * rows it could show and the names it handled (the caller shows any other field raw).
 */
export function growingFields(trace: Record<string, unknown>, onOpenCall: (callId: number) => void): { rows: ReactNode[]; handled: Set<string> } {
  const rows: ReactNode[] = [];
  const handled = new Set<string>();
  const { rounds, calls, steps, language, history, loops, pipeline } = trace;
  if (isList(rounds) && rounds.length) {
    handled.add('rounds');
    rows.push(
      <Row key="rounds" name="Retrieval">
        {(rounds as RoundView[]).map((r, i) => (
          <RoundBlock key={i} round={r} />
        ))}
      </Row>,
    );
  }
  if (isList(steps) && steps.length) {
    handled.add('steps');
    rows.push(
      <Row key="steps" name="Steps">
        <ol className="chat-trace-steps">
          {steps.map((s, i) => (
            <li key={i}>
              <span title={String(s.id ?? s.action ?? '')}>{stepLabel(String(s.id ?? s.action ?? '?'))}</span> <span className="muted">{String(s.outcome ?? '')}</span>
              {typeof s.ms === 'number' ? <span className="muted"> · {s.ms} ms</span> : null}
            </li>
          ))}
        </ol>
      </Row>,
    );
  }
  if (isRecord(language)) {
    handled.add('language');
    rows.push(
      <Row key="language" name="Language">
        {String(language.language ?? 'unsure')} ({String(language.source ?? '?')}
        {typeof language.confidence === 'number' ? `, ${Math.round(language.confidence * 100)}%` : ''}){language.translated ? ' · translated in and back' : ''}
      </Row>,
    );
  }
  if (isRecord(history)) {
    handled.add('history');
    const summary = isRecord(history.summary) ? history.summary : null;
    rows.push(
      <Row key="history" name="History">
        {String(history.messages ?? '?')} earlier messages, {String(history.tokens ?? '?')} of {String(history.budgetTokens ?? '?')} tokens
        {summary ? ` · a summary through message ${String(summary.throughMessageId)}${summary.created ? ' (written by this turn)' : ''}` : ''}
        {summary ? <pre className="chat-trace-pre" aria-label="History summary">{String(summary.text ?? '')}</pre> : null}
      </Row>,
    );
  }
  if (isRecord(loops)) {
    handled.add('loops');
    const requests = Array.isArray(loops.requests) ? loops.requests.map(String) : [];
    rows.push(
      <Row key="loops" name="Follow-ups">
        {String(loops.used ?? 0)} of {String(loops.max ?? '?')}
        {loops.exhausted ? ' · the cap ended the turn' : ''}
        {requests.length ? ` · ${requests.map((r) => `“${r}”`).join(', ')}` : ''}
      </Row>,
    );
  }
  if (isRecord(pipeline)) {
    handled.add('pipeline');
    const lineage = (Array.isArray(pipeline.lineage) ? pipeline.lineage.map(String) : []).filter((name) => name !== pipeline.name);
    const notes = [...(Array.isArray(pipeline.warnings) ? pipeline.warnings : []), ...(Array.isArray(pipeline.problems) ? pipeline.problems : [])].map(String);
    rows.push(
      <Row key="pipeline" name="Pipeline">
        {String(pipeline.name ?? '?')}
        {lineage.length ? <span className="muted"> (extends {lineage.join(' → ')})</span> : null}
        {notes.map((n) => (
          <div key={n} className="muted">
            {n}
          </div>
        ))}
      </Row>,
    );
  }
  if (isList(calls) && calls.length) {
    handled.add('calls');
    rows.push(
      <Row key="calls" name="Model calls">
        <TraceCalls calls={calls as TraceCallView[]} onOpen={onOpenCall} />
      </Row>,
    );
  }
  return { rows, handled };
}
