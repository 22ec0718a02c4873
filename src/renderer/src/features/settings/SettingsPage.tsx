import { useEffect } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { EmptyState } from '../../components/EmptyState';
import { runsSelectors, useRunsStore } from '../runs/store';
import { McpSnippets } from './McpSnippets';
import { draftToValue, SETTING_SECTIONS, valueAt, type SettingField } from './fields';
import { useSettingsStore } from './store';

/** Settings: the config file as a form; saving edits single keys so the file keeps its comments. */
export function SettingsPage() {
  const info = useRunsStore(runsSelectors.info);
  const { config, error, isSaving, savedAt } = useSettingsStore(useShallow((s) => ({ config: s.config, error: s.error, isSaving: s.isSaving, savedAt: s.savedAt })));
  const { load, create, save, setDraft, discard } = useSettingsStore(useShallow((s) => ({ load: s.load, create: s.create, save: s.save, setDraft: s.setDraft, discard: s.discard })));
  const drafts = useSettingsStore((s) => s.drafts);
  useEffect(() => {
    void load();
  }, [load]);
  if (config && !config.exists) {
    return (
      <EmptyState title="Settings" action={<button type="button" className="primary" onClick={() => void create()}>Create config</button>}>
        <p>There is no config yet. Create one with commented defaults at <code>{config.path}</code>.</p>
        <p>Data folder: <code>{info?.dataDir ?? '…'}</code></p>
      </EmptyState>
    );
  }
  const current = (f: SettingField) => {
    const v = valueAt(config?.values ?? null, f.path);
    return v === undefined || v === null ? '' : String(v);
  };
  const changed = SETTING_SECTIONS.flatMap((s) => s.fields).filter((f) => drafts[f.path.join('.')] !== undefined && drafts[f.path.join('.')] !== current(f));
  const invalid = changed.filter((f) => draftToValue(f, drafts[f.path.join('.')] ?? '') === undefined);
  const submit = () =>
    void save(changed.map((f) => ({ path: f.path, value: draftToValue(f, drafts[f.path.join('.')] ?? '') as string | number | boolean | null })));
  return (
    <div className="page">
      <header className="page-header">
        <h1>Settings</h1>
        <code className="muted" data-testid="config-path">{config?.path ?? ''}</code>
        <span className="spacer" />
        {savedAt && changed.length === 0 ? <span className="muted">Saved</span> : null}
        <button type="button" className="primary" disabled={changed.length === 0 || invalid.length > 0 || isSaving} onClick={submit}>
          {isSaving ? 'Saving…' : `Save${changed.length ? ` (${changed.length})` : ''}`}
        </button>
      </header>
      {error ? <p className="error-text" role="alert">{error.message}</p> : null}
      {changed.length ? (
        <p className="settings-unsaved" role="status">
          {changed.length} unsaved change{changed.length === 1 ? '' : 's'}: {changed.map((f) => f.label).join(', ')}. They stay here when you leave this page; Save writes them, Discard drops them.{' '}
          <button type="button" onClick={discard}>
            Discard
          </button>
        </p>
      ) : null}
      {config?.error && config.exists ? (
        <div className="panel error-banner" role="alert" data-testid="config-error">
          <strong>The config file has an error</strong>
          <p className="mono">{config.error.message}</p>
          <p className="muted small">
            Until it is fixed, search uses the default settings and the model features are off. A value the form can fix is saved below; a file that does not parse must be fixed in an editor (saving is refused, so
            nothing of yours is overwritten).
          </p>
        </div>
      ) : null}
      <p className="muted">Saving changes only the keys you edited; your comments and layout in the file stay as they are.</p>
      {SETTING_SECTIONS.map((section) => (
        <section key={section.title} className="panel settings-section" aria-label={section.title}>
          <h2 className="section-title">{section.title}</h2>
          {section.fields.map((f) => {
            const key = f.path.join('.');
            const value = drafts[key] ?? current(f);
            const setValue = (v: string) => setDraft(key, v);
            return (
              <label key={key} className="settings-field">
                <span>{f.label}</span>
                <FieldInput field={f} value={value} onChange={setValue} />
                {invalid.includes(f) ? <span className="error-text">{f.kind === 'int' ? 'a whole number' : 'a number'}</span> : <span className="muted small">{f.help ?? `[${f.path.slice(0, -1).join('.')}].${f.path[f.path.length - 1]}`}</span>}
              </label>
            );
          })}
        </section>
      ))}
      <section className="panel settings-section" aria-label="Data">
        <h2 className="section-title">Data location</h2>
        <p>
          <code>{info?.dataDir ?? '…'}</code> <span className="muted">(set with --data-dir or CRA_HOME)</span>
        </p>
      </section>
      <McpSnippets info={info} />
    </div>
  );
}

function FieldInput({ field, value, onChange }: { field: SettingField; value: string; onChange(v: string): void }) {
  if (field.kind === 'bool') return <input type="checkbox" aria-label={field.label} checked={value === 'true'} onChange={(e) => onChange(String(e.target.checked))} />;
  if (field.kind === 'select') {
    return (
      <select aria-label={field.label} value={value} onChange={(e) => onChange(e.target.value)}>
        {field.options?.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    );
  }
  return <input aria-label={field.label} value={value} inputMode={field.kind === 'text' ? undefined : 'decimal'} onChange={(e) => onChange(e.target.value)} />;
}
