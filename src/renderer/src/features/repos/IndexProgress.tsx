import { ProgressBar } from '../../components/ProgressBar';
import type { RepoRun } from './reducers';
import { INDEX_PHASES, progressFigures, progressPercent } from './reducers';

/** The phases of a running index with a determinate bar, rate, ETA and Cancel. */
export function IndexProgress(props: { run: RepoRun; onCancel(): void }) {
  const { run } = props;
  const progress = run.progress;
  const percent = progressPercent(progress ?? null);
  const phases = run.kind === 'index' ? [...INDEX_PHASES, ...run.phases.filter((p) => !(INDEX_PHASES as readonly string[]).includes(p))] : run.phases;
  const current = progress?.phase ?? null;
  const currentIndex = current ? phases.indexOf(current) : -1;
  return (
    <div className="index-progress" data-testid="index-progress" aria-label={run.kind === 'embed' ? 'Embedding progress' : 'Indexing progress'}>
      <ol className="phases">
        {phases.map((phase, index) => (
          <li key={phase} className={index < currentIndex ? 'phase done' : index === currentIndex ? 'phase current' : 'phase'}>
            {index < currentIndex ? '✓ ' : ''}
            {phase}
          </li>
        ))}
      </ol>
      <div className="row">
        <ProgressBar className="grow" percent={percent} label={current ? `${current} progress` : 'progress'} />
        <span className="mono progress-figures" data-testid="progress-figures">
          {progressFigures(run.kind, progress ?? null)}
        </span>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
      {progress?.message ? <div className="muted progress-message">{progress.message}</div> : null}
    </div>
  );
}
