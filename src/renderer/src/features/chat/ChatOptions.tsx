import { useShallow } from 'zustand/react/shallow';
import type { ChatMode, ChatPipelines } from '../../../../shared/contract/chat';
import { chatSelectors, useChatStore } from './store';

/** Languages offered besides `auto`; any other ISO 639-1 code a conversation used is added to the list. */
const LANGUAGES = ['en', 'pl', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'sv', 'cs', 'uk', 'ru', 'tr', 'ja', 'zh', 'ko'];

/** An English name of a language code ("pl" → "Polish"); the code when the browser does not know it. */
export function languageLabel(code: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(code) ?? code;
  } catch {
    return code;
  }
}

/**
 * What the next question runs with: the retrieval mode, the conversation's pipeline (usable ones
 * to choose from; a refused one is listed, greyed, with its file, line and reason) and its language.
 */
export function ChatOptions(props: { repoId: string }) {
  const { mode, pipelines, pipelineError } = useChatStore(useShallow((s) => ({ mode: s.mode, pipelines: s.pipelines, pipelineError: s.pipelineError })));
  const { setMode } = useChatStore.getState();
  return (
    <div className="chat-options" data-testid="chat-options">
      <div className="chat-options-row">
        <label>
          Mode{' '}
          <select aria-label="Retrieval mode" value={mode} onChange={(e) => setMode(e.target.value as ChatMode)}>
            <option value="auto">auto (router)</option>
            <option value="keyword">keyword</option>
            <option value="semantic">semantic</option>
            <option value="hybrid">hybrid</option>
          </select>
        </label>
        <PipelinePicker repoId={props.repoId} pipelines={pipelines} />
        <LanguagePicker />
      </div>
      {pipelineError ? (
        <p className="error-text" role="alert">
          {pipelineError.message}
        </p>
      ) : null}
      {pipelines ? <PipelineProblems pipelines={pipelines} /> : null}
    </div>
  );
}

function PipelinePicker(props: { repoId: string; pipelines: ChatPipelines | null }) {
  const { pipelines, repoId } = props;
  const chosen = useChatStore(chatSelectors.pipeline);
  const { setPipeline, loadPipelines, setDefaultPipeline } = useChatStore.getState();
  if (!pipelines) return <span className="muted">Pipeline: reading…</span>;
  const usable = new Set(pipelines.pipelines.map((p) => p.name));
  // Refused pipelines are shown by name where the file got that far, and cannot be chosen.
  const refused = [...new Set(pipelines.refused.flatMap((p) => (p.name && !usable.has(p.name) ? [p.name] : [])))];
  const isDefault = chosen === pipelines.defaultPipeline;
  return (
    <>
      <label>
        Pipeline{' '}
        <select
          aria-label="Pipeline"
          value={chosen ?? ''}
          // The files are validated again each time the list is opened: an edit shows without a reload.
          onFocus={() => void loadPipelines(repoId)}
          onChange={(e) => setPipeline(e.target.value)}
        >
          {chosen !== null && !usable.has(chosen) ? (
            <option value={chosen} disabled>
              {chosen} (cannot be used now)
            </option>
          ) : null}
          {pipelines.pipelines.map((p) => (
            <option key={p.name} value={p.name} title={`${p.file}${p.warnings.length ? `\n${p.warnings.join('\n')}` : ''}`}>
              {p.name}
              {/^resources[\\/]/.test(p.file) ? ' (built-in)' : p.name === pipelines.defaultPipeline ? ' (repository default)' : ''}
              {p.lineage.length > 1 ? ` · extends ${p.lineage.slice(0, -1).join(' → ')}` : ''}
            </option>
          ))}
          {refused.map((name) => (
            <option key={`refused-${name}`} value={`refused:${name}`} disabled>
              {name} (refused)
            </option>
          ))}
        </select>
      </label>
      {chosen !== null && usable.has(chosen) && !isDefault ? (
        <button type="button" className="link" onClick={() => void setDefaultPipeline(repoId, chosen)} title="New conversations of this repository start with this pipeline">
          Make default
        </button>
      ) : null}
      {isDefault && pipelines.defaultPipeline !== 'default' ? (
        <button type="button" className="link" onClick={() => void setDefaultPipeline(repoId, null)} title="New conversations start with the built-in default pipeline again">
          Unset default
        </button>
      ) : null}
    </>
  );
}

/** Refused pipeline files with file, line and reason; the repository's chosen default when it broke. */
function PipelineProblems(props: { pipelines: ChatPipelines }) {
  const { refused, chosenDefault } = props.pipelines;
  if (!refused.length && !chosenDefault) return null;
  return (
    <div className="chat-pipeline-problems" role="group" aria-label="Refused pipelines">
      {chosenDefault ? (
        <p className="error-text">
          The repository&apos;s default pipeline “{chosenDefault.name}” cannot be used now ({chosenDefault.problem}); new conversations use the built-in default.
        </p>
      ) : null}
      {refused.length ? (
        <details open>
          <summary>
            {refused.length} pipeline file{refused.length === 1 ? '' : 's'} refused; the others still work
          </summary>
          <ul>
            {refused.map((p, i) => (
              <li key={i} data-testid="chat-pipeline-problem">
                <span className="mono">
                  {p.file}
                  {p.line ? `:${p.line}` : ''}
                </span>
                {p.name ? <> · pipeline “{p.name}”</> : null}: {p.message}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </div>
  );
}

function LanguagePicker() {
  const language = useChatStore((s) => s.language);
  // What detection found for the latest question, shown beside "auto".
  const detected = useChatStore((s) => {
    const found = s.turns.findLast((t) => t.trace?.language)?.trace?.language;
    return found && found.source === 'detected' ? found.language : undefined;
  });
  const { setLanguage } = useChatStore.getState();
  const codes = LANGUAGES.includes(language) || language === 'auto' ? LANGUAGES : [language, ...LANGUAGES];
  return (
    <label>
      Language{' '}
      <select aria-label="Language" value={language} onChange={(e) => setLanguage(e.target.value)} title="Other than English, the question is translated in and the answer back (both calls in the trace)">
        <option value="auto">auto (detected{detected !== undefined ? `: ${detected === null ? 'unsure' : languageLabel(detected)}` : ''})</option>
        {codes.map((code) => (
          <option key={code} value={code}>
            {languageLabel(code)} ({code})
          </option>
        ))}
      </select>
    </label>
  );
}
