import type { ModelCallDetail } from '../../../../shared/contract';
import { useLogsStore } from './store';

/** One model call, whole: system, prompt, response, parameters. */
export function CallDetail({ call }: { call: ModelCallDetail }) {
  const close = useLogsStore((s) => s.close);
  const showRun = useLogsStore((s) => s.showRun);
  return (
    <section className="panel call-detail" aria-label={`Call ${call.id}`}>
      <div className="row">
        <strong>
          #{call.id} · {call.model}
        </strong>
        <span className="muted">
          {call.stage ?? 'no stage'} · {call.provider} · {new Date(call.createdAt).toLocaleString()}
        </span>
        {call.runId ? (
          <button type="button" className="link" onClick={() => void showRun(call.runId as string)}>
            run {call.runId}
          </button>
        ) : null}
        <span className="grow" />
        <button type="button" onClick={close}>
          Close
        </button>
      </div>
      <p className="muted">
        {call.promptTokens ?? '–'} prompt tokens · {call.completionTokens ?? '–'} completion tokens · {call.latencyMs ?? '–'} ms · {call.baseUrl ?? ''}
      </p>
      {call.error ? <p className="error-text">{call.error}</p> : null}
      <h3>System</h3>
      <pre className="call-text">{call.system ?? '(none)'}</pre>
      <h3>Prompt</h3>
      <pre className="call-text">{call.prompt}</pre>
      <h3>Response</h3>
      <pre className="call-text">{call.response ?? '(none)'}</pre>
      <h3>Parameters</h3>
      <pre className="call-text">{JSON.stringify(call.params, null, 2)}</pre>
    </section>
  );
}
