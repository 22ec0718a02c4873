import { ProgressBar } from '../../components/ProgressBar';
import { pullLabel, type PullView } from './reducers';
import { useModelsStore } from './store';

/** A pull's progress bar (bytes, speed, ETA) with Cancel, and Resume after a cancel or a failure a second pull can get past. */
export function PullBar({ pull }: { pull: PullView }) {
  const cancel = useModelsStore((s) => s.cancelPull);
  const start = useModelsStore((s) => s.pull);
  const percent = pull.progress?.percent ?? 0;
  return (
    <div className="pull-bar" data-testid={`pull-${pull.model}`}>
      <div className="row">
        <ProgressBar className="grow" percent={percent} label={`Pulling ${pull.model}`} />
        {pull.status === 'running' ? (
          <button type="button" onClick={() => void cancel(pull.model)}>
            Cancel
          </button>
        ) : null}
        {pull.resumable ? (
          <button type="button" className="primary" onClick={() => void start(pull.model)}>
            Resume
          </button>
        ) : null}
      </div>
      <div className="muted small">
        {pull.status === 'cancelled' ? `Cancelled at ${pullLabel(pull.progress)} — Resume continues where it stopped.` : null}
        {pull.status === 'failed' ? <span className="error-text">{pull.error}</span> : null}
        {pull.status === 'running' ? pullLabel(pull.progress) : null}
        {pull.status === 'done' ? 'Downloaded.' : null}
      </div>
    </div>
  );
}
