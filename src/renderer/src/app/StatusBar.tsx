import { useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { runPercent } from '../features/runs/reducers';
import { runsSelectors, useRunsStore } from '../features/runs/store';
import { ModelServerStatusItem } from '../features/models/ServerStatus';

/** Engine health, model server and background jobs (click for the job list with Cancel). */
export function StatusBar() {
  const { engine, info, jobs } = useRunsStore(useShallow((s) => ({ engine: runsSelectors.engine(s), info: runsSelectors.info(s), jobs: runsSelectors.all(s) })));
  const cancel = useRunsStore((s) => s.cancel);
  const [isOpen, setOpen] = useState(false);
  const running = jobs.filter((j) => j.status === 'running');
  return (
    <footer className="status-bar" role="contentinfo">
      <span className={`status-item engine-${engine}`} data-testid="engine-status">
        Engine: {engine === 'ok' ? 'ok' : engine === 'connecting' ? 'connecting…' : 'unreachable'}
      </span>
      <ModelServerStatusItem />
      <button type="button" className="status-item status-jobs" onClick={() => setOpen(!isOpen)} aria-expanded={isOpen}>
        {running.length === 0
          ? 'No background jobs'
          : running.map((j) => `${j.title} ${runPercent(j) !== null ? `${runPercent(j)}%` : `${j.progress?.phase ?? 'starting'}…`}`).join(' · ')}
      </button>
      <span className="status-item status-right">{info ? `v${info.version} · ${info.host}` : ''}</span>
      {isOpen ? (
        <div className="job-list" role="dialog" aria-label="Background jobs">
          {jobs.length === 0 ? <p>No jobs have run yet.</p> : null}
          {jobs.map((j) => (
            <div key={j.runId} className="job-row">
              <span className="job-title">{j.title}</span>
              <span className="job-state">
                {j.status}
                {j.progress ? ` · ${j.progress.phase}` : ''}
                {j.status === 'running' && runPercent(j) !== null ? ` ${runPercent(j)}%` : ''}
              </span>
              {j.status === 'failed' && j.error ? (
                <span className="job-error error-text" title={`${j.error.code}: ${j.error.message}`}>
                  {j.error.message}
                </span>
              ) : null}
              {j.status === 'running' ? (
                <button type="button" onClick={() => void cancel(j.runId)}>
                  Cancel
                </button>
              ) : null}
            </div>
          ))}
        </div>
      ) : null}
    </footer>
  );
}
