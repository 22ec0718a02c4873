import { useEffect } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ModelSetupPlan } from '../../../../shared/contract';
import { ProgressBar } from '../../components/ProgressBar';
import { runsSelectors, useRunsStore } from '../runs/store';
import { formatBytes } from './reducers';
import { modelsSelectors, useModelsStore } from './store';

const STAGE_WORDS: Record<string, string> = { chat: 'answers', plan: 'plans', scope: 'finding files', precision: 'picking code', task_analysis: 'reading the task' };

/** "answers and plans" — what a person loses while these stages have no model. */
function needsText(stages: readonly string[]): string {
  const words = [...new Set(stages.map((s) => STAGE_WORDS[s] ?? s.replace('_', ' ')))];
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

function runtimeText(plan: ModelSetupPlan): string {
  if (plan.provider === 'ollama') return `Ollama answers at ${plan.ollama.address}; the models are pulled there.`;
  if (plan.provider === 'builtin') return 'No Ollama here: the models run inside the app, nothing else to install.';
  return '';
}

/**
 * One step to working models, inline where a page needs one: what is missing, the proposed model
 * per stage that fits this machine, and one button that downloads and assigns them all. Shows
 * nothing once every stage in `stages` (default: all) has a working model.
 */
export function SetupModels(props: { stages?: readonly string[]; title?: string }) {
  const { plan, error, runId } = useModelsStore(useShallow((s) => ({ plan: modelsSelectors.setupPlan(s), error: s.errors.setup ?? null, runId: s.setupRunId })));
  const run = useRunsStore(runsSelectors.byId(runId));
  const { loadSetupPlan, setup } = useModelsStore.getState();
  useEffect(() => {
    void loadSetupPlan();
  }, [loadSetupPlan]);
  if (!plan) return null;
  const missing = plan.missingStages.filter((s) => !props.stages || props.stages.includes(s));
  const running = run?.status === 'running';
  if (missing.length === 0 && !running) return null;
  const progress = run?.progress;
  const percent = progress?.total ? (progress.done / progress.total) * 100 : null;
  const toDownload = plan.models.filter((m) => !m.installed);
  return (
    <section className="panel setup-models" aria-label="Set up models" data-testid="setup-models">
      <h2 className="section-title">{props.title ?? 'Set up models'}</h2>
      <p>
        {plan.missingStages.length >= 12 ? 'No models yet' : `No working model for ${needsText(missing)} yet`}. {runtimeText(plan)}
      </p>
      {plan.provider ? (
        <>
          <ul className="setup-list">
            {plan.models.map((m) => (
              <li key={m.name}>
                <span className="mono">{m.name}</span> <span className="muted small">— {m.installed ? 'on this machine' : m.sizeBytes ? formatBytes(m.sizeBytes) : 'size unknown'} · for {m.stages.join(', ')}</span>
              </li>
            ))}
          </ul>
          <p className="muted small" data-testid="setup-summary">
            {toDownload.length ? `Downloads ${formatBytes(plan.downloadBytes)}` : 'Nothing to download'}; all loaded together they need {formatBytes(plan.memoryBytes)} of this machine&apos;s {formatBytes(plan.memory.totalBytes)}.
          </p>
          {running ? (
            <div className="setup-progress">
              <ProgressBar percent={percent} label="Setting up models" />
              <span className="muted small">
                {progress?.message ?? 'Starting'} {progress?.phase ? `(${progress.phase})` : ''}
              </span>
            </div>
          ) : (
            <button type="button" className="primary" onClick={() => void setup()}>
              {toDownload.length ? 'Set up models' : 'Assign these models'}
            </button>
          )}
        </>
      ) : null}
      {plan.notes
        .filter((n) => !plan.provider || !n.startsWith('Ollama'))
        .map((note) => (
          <p key={note} className="muted small">
            {note}
          </p>
        ))}
      {error ? (
        <p className="error-text" role="alert">
          {error.message}
        </p>
      ) : null}
    </section>
  );
}
