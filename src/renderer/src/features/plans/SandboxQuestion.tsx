import { useEffect, useRef } from 'react';
import { useSolveStore } from './solveStore';

/**
 * Asked once, before the first run whose validation commands would run without an OS sandbox
 * (this machine has none and the user has not allowed it): what that means, and the choice.
 * Allowing is saved in the user's settings (Settings → Validation sandbox), so it is not asked again.
 */
export function SandboxQuestion() {
  const question = useSolveStore((s) => s.sandboxQuestion);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (question) cancel.current?.focus();
  }, [question]);
  if (!question) return null;
  const answer = (allow: boolean) => void useSolveStore.getState().answerSandbox(allow);
  return (
    <div className="overlay" onMouseDown={() => answer(false)}>
      <div
        className="shortcut-sheet"
        role="alertdialog"
        aria-label="Run validation without a sandbox?"
        onMouseDown={(event) => event.stopPropagation()}
        onKeyDown={(event) => {
          if (event.key === 'Escape') answer(false);
        }}
      >
        <h2>Run validation without a sandbox?</h2>
        <p>{question.message}</p>
        <p className="muted">Your answer is kept in Settings → Validation sandbox, where you can change it.</p>
        <div className="row">
          <span className="grow" />
          <button ref={cancel} type="button" onClick={() => answer(false)}>
            Don’t run
          </button>
          <button type="button" className="danger" onClick={() => answer(true)}>
            Allow and run
          </button>
        </div>
      </div>
    </div>
  );
}
