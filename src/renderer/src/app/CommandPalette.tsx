import { useEffect, useMemo, useRef, useState } from 'react';
import { moveSelection } from '../features/search/reducers';
import type { PaletteEntry } from './paletteEntries';
import { filterEntries } from './shortcuts';

/** The command palette (Ctrl/Cmd+K): a filter box over every entry; ↑/↓ move, Enter runs, Esc closes. */
export function CommandPalette(props: { entries: PaletteEntry[]; onClose(): void }) {
  const [filter, setFilter] = useState('');
  const [selected, setSelected] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const shown = useMemo(() => filterEntries(props.entries, filter), [props.entries, filter]);
  useEffect(() => input.current?.focus(), []);
  useEffect(() => setSelected(0), [filter]);
  const choose = (entry: PaletteEntry | undefined) => {
    if (!entry) return;
    props.onClose();
    entry.run();
  };
  return (
    <div className="overlay" onMouseDown={props.onClose}>
      <div className="palette" role="dialog" aria-label="Command palette" onMouseDown={(event) => event.stopPropagation()}>
        <input
          ref={input}
          className="palette-input"
          aria-label="Type a page, repository, conversation, run or action"
          placeholder="Go to a page, repository, conversation, run, or run an action…"
          role="combobox"
          aria-expanded="true"
          aria-controls="palette-list"
          value={filter}
          onChange={(event) => setFilter(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
              event.preventDefault();
              setSelected((index) => moveSelection(index, shown.length, event.key === 'ArrowDown' ? 1 : -1));
            } else if (event.key === 'Enter') {
              event.preventDefault();
              choose(shown[selected]);
            } else if (event.key === 'Escape') {
              event.preventDefault();
              props.onClose();
            }
          }}
        />
        <ul className="palette-list" id="palette-list" role="listbox" aria-label="Commands">
          {shown.length === 0 ? <li className="muted palette-empty">Nothing matches “{filter}”.</li> : null}
          {shown.map((entry, index) => (
            <li
              key={entry.id}
              role="option"
              aria-selected={index === selected}
              className={index === selected ? 'palette-entry selected' : 'palette-entry'}
              onMouseEnter={() => setSelected(index)}
              onClick={() => choose(entry)}
            >
              <span className="palette-group">{entry.group}</span>
              <span className="palette-label">{entry.label}</span>
              {entry.detail ? <span className="muted palette-detail">{entry.detail}</span> : null}
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}
