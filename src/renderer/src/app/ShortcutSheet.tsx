import { useEffect, useRef } from 'react';
import { PAGES } from './pages';
import { pageShortcut, SHORTCUTS } from './shortcuts';
import { PAGE_IDS } from './store/navStore';

/** The keyboard shortcuts (`?`): pages by G then a letter, the palette, and the rest. Esc closes. */
export function ShortcutSheet(props: { onClose(): void }) {
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => close.current?.focus(), []);
  return (
    <div className="overlay" onMouseDown={props.onClose}>
      <div
        className="shortcut-sheet"
        role="dialog"
        aria-label="Keyboard shortcuts"
        onMouseDown={(event) => event.stopPropagation()}
        onKeyDown={(event) => {
          if (event.key === 'Escape') props.onClose();
        }}
      >
        <div className="row">
          <h2 className="grow">Keyboard shortcuts</h2>
          <button ref={close} type="button" onClick={props.onClose}>
            Close
          </button>
        </div>
        <table className="grid shortcut-table">
          <tbody>
            {SHORTCUTS.map((s) => (
              <tr key={s.keys}>
                <td className="mono shortcut-keys">{s.keys}</td>
                <td>{s.what}</td>
              </tr>
            ))}
            {PAGE_IDS.map((id) => (
              <tr key={id}>
                <td className="mono shortcut-keys">{pageShortcut(id)}</td>
                <td>Go to {PAGES[id].label}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <p className="muted">Letters work when the focus is not in a text field. Ctrl/Cmd+digit is left to the browser&apos;s tabs.</p>
      </div>
    </div>
  );
}
