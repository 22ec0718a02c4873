import Editor from '@monaco-editor/react';
import { useState } from 'react';
import type { Plan, PlanChange, PlanFile } from '../../../../shared/contract/plans';
import { configureMonaco } from '../../lib/monaco';
import { planDraft } from './draft';
import { PlanGraph } from './PlanGraph';
import { useSolveStore } from './solveStore';
import { plansSelectors, usePlansStore } from './store';

configureMonaco();

const ROLES: PlanFile['role'][] = ['modify', 'create', 'delete'];
const ACTIONS: PlanChange['action'][] = ['modify', 'add', 'delete', 'rename'];
const list = (text: string) => text.split(',').map((s) => s.trim()).filter(Boolean);

/** The plan under edit: a structured form or its JSON, live problems, the order as a graph; Save makes a new version. */
export function PlanEditor() {
  const artifact = usePlansStore(plansSelectors.artifact);
  const draft = usePlansStore(plansSelectors.draft);
  const saveError = usePlansStore(plansSelectors.error('save'));
  const validateError = usePlansStore(plansSelectors.error('validate'));
  const { edit, editJson, save } = usePlansStore.getState();
  const [view, setView] = useState<'form' | 'json'>('form');
  if (!artifact || !draft) return null;
  const plan = draft.plan;
  const canSave = draft.isDirty && plan !== null && draft.problems.length === 0 && !draft.isChecking;

  return (
    <section className="plan-editor" aria-label="Plan editor">
      <header className="plan-editor-head">
        <div>
          <h2>{artifact.task}</h2>
          <span className="muted">
            version {artifact.version} · {artifact.model} · {new Date(artifact.createdAt).toLocaleString()}
            {artifact.editedFrom ? ` · edited from ${artifact.editedFrom}` : ''}
          </span>
        </div>
        <span className="spacer" />
        <div className="segmented" role="tablist" aria-label="Plan view">
          <button type="button" role="tab" aria-selected={view === 'form'} className={view === 'form' ? 'active' : ''} onClick={() => setView('form')}>
            Form
          </button>
          <button type="button" role="tab" aria-selected={view === 'json'} className={view === 'json' ? 'active' : ''} onClick={() => setView('json')}>
            JSON
          </button>
        </div>
        <button type="button" className="primary" disabled={!canSave} onClick={() => void save()} title={canSave ? 'Save as a new version' : 'Edit the plan and fix every problem to save'}>
          Save as version {artifact.version + 1}
        </button>
        <button
          type="button"
          disabled={draft.isDirty || draft.problems.length > 0}
          title={draft.isDirty ? 'Save the edited plan first: a run uses a saved version' : 'Implement this plan in a worktree of ours; every change waits for your review'}
          onClick={() => void useSolveStore.getState().start({ task: artifact.task, plan: artifact.plan })}
        >
          Run
        </button>
      </header>
      <Problems problems={draft.problems} isChecking={draft.isChecking} />
      {saveError ? <p className="error-text" role="alert">{saveError.message}</p> : null}
      {validateError ? <p className="error-text" role="alert">Could not check the plan: {validateError.message}</p> : null}
      {view === 'json' || plan === null ? (
        <div className="plan-json" data-testid="plan-json">
          {plan === null && view === 'form' ? <p className="muted">The JSON does not match the plan's shape yet; fix it here, then the form comes back.</p> : null}
          <Editor height="100%" language="json" value={draft.json} onChange={(text) => editJson(text ?? '')} options={{ minimap: { enabled: false }, fontSize: 12, scrollBeyondLastLine: false, automaticLayout: true }} />
        </div>
      ) : (
        <PlanForm plan={plan} edit={edit} />
      )}
    </section>
  );
}

function Problems(props: { problems: string[]; isChecking: boolean }) {
  if (props.problems.length === 0) {
    return (
      <p className="plan-status" data-testid="plan-problems" data-count={0}>
        {props.isChecking ? 'Checking…' : '✓ The plan is valid: every file exists or is created, no cycles, the order follows the dependencies.'}
      </p>
    );
  }
  return (
    <ul className="plan-problems error-text" data-testid="plan-problems" data-count={props.problems.length} aria-label="Problems">
      {props.problems.map((p) => (
        <li key={p}>{p}</li>
      ))}
    </ul>
  );
}

function PlanForm(props: { plan: Plan; edit: (change: (plan: Plan) => Plan) => void }) {
  const { plan, edit } = props;
  const [newPath, setNewPath] = useState('');
  return (
    <div className="plan-form">
      <label className="field">
        <span>Summary</span>
        <input value={plan.task_summary} onChange={(e) => edit((p) => ({ ...p, task_summary: e.target.value }))} />
      </label>
      <div className="plan-columns">
        <div className="plan-files">
          {plan.affected_files.map((file, fi) => (
            <fieldset key={fi} className="plan-file" data-testid="plan-file" data-path={file.path}>
              <legend>
                <input className="mono" aria-label="File path" value={file.path} onChange={(e) => edit((p) => planDraft.setFile(p, fi, { path: e.target.value }))} />
                <select aria-label="Role" value={file.role} onChange={(e) => edit((p) => planDraft.setFile(p, fi, { role: e.target.value as PlanFile['role'] }))}>
                  {ROLES.map((r) => (
                    <option key={r}>{r}</option>
                  ))}
                </select>
                <button type="button" className="link danger" onClick={() => edit((p) => planDraft.removeFile(p, fi))}>
                  Remove file
                </button>
              </legend>
              {file.changes.map((change, ci) => (
                <div key={ci} className="plan-change">
                  <input className="mono" aria-label="Symbol" placeholder="symbol" value={change.symbol} onChange={(e) => edit((p) => planDraft.setChange(p, fi, ci, { symbol: e.target.value }))} />
                  <select aria-label="Action" value={change.action} onChange={(e) => edit((p) => planDraft.setChange(p, fi, ci, { action: e.target.value as PlanChange['action'] }))}>
                    {ACTIONS.map((a) => (
                      <option key={a}>{a}</option>
                    ))}
                  </select>
                  <textarea aria-label="Description" rows={2} value={change.description} onChange={(e) => edit((p) => planDraft.setChange(p, fi, ci, { description: e.target.value }))} />
                  <input
                    className="mono"
                    aria-label="Depends on"
                    placeholder="depends on: path or path:Symbol, comma-separated"
                    value={change.depends_on.join(', ')}
                    onChange={(e) => edit((p) => planDraft.setChange(p, fi, ci, { depends_on: list(e.target.value) }))}
                  />
                  <button type="button" className="link danger" onClick={() => edit((p) => planDraft.removeChange(p, fi, ci))}>
                    Remove change
                  </button>
                </div>
              ))}
              <button type="button" className="link" onClick={() => edit((p) => planDraft.addChange(p, fi))}>
                + change
              </button>
            </fieldset>
          ))}
          <form
            className="plan-add-file"
            onSubmit={(e) => {
              e.preventDefault();
              if (!newPath.trim()) return;
              edit((p) => planDraft.addFile(p, newPath));
              setNewPath('');
            }}
          >
            <input className="mono" aria-label="New file path" placeholder="path/of/another/file" value={newPath} onChange={(e) => setNewPath(e.target.value)} />
            <button type="submit">Add file</button>
          </form>
        </div>
        <aside className="plan-order" aria-label="Execution order">
          <h3>Execution order</h3>
          <ol>
            {plan.execution_order.map((path, i) => (
              <li key={path} data-testid="order-item">
                <span className="mono">{path}</span>
                <button type="button" aria-label={`Move ${path} up`} disabled={i === 0} onClick={() => edit((p) => planDraft.moveInOrder(p, i, -1))}>
                  ↑
                </button>
                <button type="button" aria-label={`Move ${path} down`} disabled={i === plan.execution_order.length - 1} onClick={() => edit((p) => planDraft.moveInOrder(p, i, 1))}>
                  ↓
                </button>
              </li>
            ))}
          </ol>
          <PlanGraph plan={plan} />
          <label className="field">
            <span>Rationale</span>
            <textarea rows={4} value={plan.rationale} onChange={(e) => edit((p) => ({ ...p, rationale: e.target.value }))} />
          </label>
        </aside>
      </div>
    </div>
  );
}
