import { useEffect, useMemo, useState } from 'react';
import type { PassContext, ProgressNode, RetrievalSummary, SolvePassRecord, SolveRunDetail } from '../../../../shared/contract';
import { useRetrievalStore } from '../retrieval/store';
import { useNavStore } from '../../app/store/navStore';
import { DiffView } from '../../components/DiffView';
import { useLogsStore } from '../logs/store';
import { runsSelectors, useRunsStore } from '../runs/store';
import { explainFailure } from './failures';
import { ReviewPanel } from './ReviewPanel';
import { FailureText, RunFailure } from './RunFailure';
import { solveSelectors, useSolveStore } from './solveStore';

const PASS_LABEL: Record<SolvePassRecord['type'], string> = { meta_plan: 'meta-plan', part_plan: 'part plan', step_implement: 'implement', adjustment: 'adjustment', implement: 'implement' };
const nodeStatus = (s: string) => (s === 'succeeded' ? 'done' : s) as ProgressNode['status'];

/** The tree as the finished run's record has it: meta-plan, then parts → (part passes, steps → passes). */
function treeOf(detail: SolveRunDetail): ProgressNode[] {
  const pass = (p: SolvePassRecord): ProgressNode => ({ id: `pass:${p.sequence}`, label: `${PASS_LABEL[p.type]}${p.attempt > 1 ? ` (attempt ${p.attempt})` : ''}`, status: nodeStatus(p.status) });
  const nodes: ProgressNode[] = [];
  const meta = detail.passes.filter((p) => p.type === 'meta_plan');
  if (meta.length) nodes.push({ id: 'meta', label: 'Meta-plan', status: nodeStatus(meta.at(-1)!.status), children: meta.map(pass) });
  for (const part of detail.parts) {
    const own = detail.passes.filter((p) => p.partId === part.id && (p.type === 'part_plan' || p.type === 'adjustment'));
    const steps = part.steps.map((s) => ({
      id: `step:${part.id}:${s.id}`,
      label: s.description.split('\n')[0]!.slice(0, 120),
      status: nodeStatus(s.status),
      children: detail.passes.filter((p) => p.partId === part.id && p.stepId === s.id && p.type !== 'adjustment').map(pass),
    }));
    nodes.push({ id: `part:${part.id}`, label: part.title, status: nodeStatus(part.status), done: part.steps.filter((s) => s.status === 'succeeded').length, total: part.steps.length, children: [...own.map(pass), ...steps] });
  }
  const loose = detail.passes.filter((p) => p.type === 'implement');
  if (loose.length && detail.parts.length === 0) nodes.push(...loose.map(pass));
  return nodes;
}

function Tree(props: { nodes: ProgressNode[]; selected: string | null; onSelect: (id: string) => void }) {
  return (
    <ul className="progress-tree" role="tree">
      {props.nodes.map((node) => (
        <li key={node.id} role="treeitem" aria-selected={node.id === props.selected} aria-expanded={node.children?.length ? true : undefined}>
          <button type="button" className={`tree-node ${node.status}${node.id === props.selected ? ' current' : ''}`} data-testid="tree-node" data-status={node.status} onClick={() => props.onSelect(node.id)}>
            <span className={`dot ${node.status}`} aria-hidden="true" />
            <span className="tree-label">{node.label}</span>
            <span className="muted">
              {node.status}
              {node.total ? ` · ${node.done ?? 0}/${node.total}` : ''}
            </span>
          </button>
          {node.children?.length ? <Tree nodes={node.children} selected={props.selected} onSelect={props.onSelect} /> : null}
        </li>
      ))}
    </ul>
  );
}

/** The context package a pass was given: files and tokens, and a link that opens it in the Context inspector. */
function PassContextLine(props: { context: PassContext; repoId: string; taskRunId: string }) {
  const go = useNavStore((s) => s.go);
  const pkg = props.context.package;
  const open = () => {
    const symbols = { primary: 0, supporting: 0, type_context: 0 };
    for (const f of pkg.files) for (const i of f.items) if (i.symbol) symbols[i.symbol.role]++;
    const summary: RetrievalSummary = { taskId: pkg.taskId, files: pkg.files.length, symbols, tokensUsed: pkg.budget.used, budget: pkg.budget.tokens, dropped: pkg.dropped.length, judgments: 0, analysis: { enrichment: 'skipped', reason: 'a solve pass' } };
    useRetrievalStore.getState().showPackage({ repoId: props.repoId, runId: props.taskRunId, package: pkg, markdown: props.context.markdown, summary });
    go('retrieval');
  };
  return (
    <div className="pass-context" data-testid="pass-context">
      <span>
        Context: {pkg.files.length} {pkg.files.length === 1 ? 'file' : 'files'} ({pkg.files.slice(0, 4).map((f) => f.path).join(', ')}
        {pkg.files.length > 4 ? ', …' : ''}) · {pkg.budget.used} of {pkg.budget.tokens} tokens
      </span>
      <button type="button" className="link" onClick={open}>
        Open in Context inspector
      </button>
    </div>
  );
}

/** What the selected node holds: a pass's output, diff, validation and calls; a step's passes. */
function NodeDetail(props: { detail: SolveRunDetail; nodeId: string; repoId: string }) {
  const go = useNavStore((s) => s.go);
  const { detail, nodeId } = props;
  const passes = nodeId.startsWith('pass:')
    ? detail.passes.filter((p) => `pass:${p.sequence}` === nodeId)
    : nodeId.startsWith('step:')
      ? detail.passes.filter((p) => `step:${p.partId}:${p.stepId}` === nodeId && p.type !== 'adjustment')
      : nodeId.startsWith('part:')
        ? detail.passes.filter((p) => `part:${p.partId}` === nodeId && (p.type === 'part_plan' || p.type === 'adjustment'))
        : detail.passes.filter((p) => p.type === 'meta_plan');
  if (passes.length === 0) return <p className="muted">No pass has run for this node yet.</p>;
  const openCalls = (taskRunId: string) => {
    void useLogsStore.getState().openRun({ repoId: props.repoId, runId: taskRunId });
    go('logs');
  };
  return (
    <div className="node-detail">
      {passes.map((p) => (
        <section key={p.sequence} className="pass" data-testid="pass-detail">
          <header className="pass-head">
            <strong>
              {PASS_LABEL[p.type]} #{p.sequence}
              {p.attempt > 1 ? ` · attempt ${p.attempt}` : ''}
            </strong>
            <span className={`badge ${nodeStatus(p.status)}`}>{p.status}</span>
            <span className="muted">{p.finishedAt ? `${((Date.parse(p.finishedAt) - Date.parse(p.startedAt)) / 1000).toFixed(1)} s` : 'running'}</span>
            <span className="spacer" />
            <button type="button" className="link" onClick={() => openCalls(p.taskRunId)}>
              Model calls
            </button>
          </header>
          {p.error ? <FailureText explained={explainFailure(p.error)} /> : null}
          {p.validation ? (
            <details open={!p.validation.ok}>
              <summary>
                Validation ({p.validation.kind}): {p.validation.ok ? 'passed' : 'failed'}
              </summary>
              {p.validation.checks.map((c) => (
                <div key={c.name}>
                  <div className="mono">
                    {c.ok ? '✓' : '✗'} {c.name}
                    {c.command ? ` — ${c.command}` : ''} (exit {c.exitCode ?? '-'}, {c.ms} ms)
                  </div>
                  {c.output ? <pre className="validation-output">{c.output}</pre> : null}
                </div>
              ))}
            </details>
          ) : null}
          {p.context ? <PassContextLine context={p.context} repoId={props.repoId} taskRunId={p.taskRunId} /> : null}
          {p.diff ? <DiffView diff={p.diff} sideBySide={false} /> : null}
          {p.output !== null && p.output !== undefined ? (
            <details>
              <summary>Output</summary>
              <pre className="pass-output">{JSON.stringify(p.output, null, 2)}</pre>
            </details>
          ) : null}
        </section>
      ))}
    </div>
  );
}

/** A solve run: its outcome, the progress tree (live while it goes), the selected node, and diff review. */
export function RunView(props: { repoId: string }) {
  const detail = useSolveStore(solveSelectors.detail);
  const selectedId = useSolveStore(solveSelectors.selectedId);
  const taskRunId = useSolveStore(solveSelectors.taskRunOf(selectedId));
  const live = useRunsStore(runsSelectors.byId(taskRunId));
  const openError = useSolveStore(solveSelectors.error('open'));
  const cancel = useRunsStore((s) => s.cancel);
  const node = useSolveStore(solveSelectors.node);
  const setNode = useSolveStore((s) => s.selectNode);
  const [tab, setTab] = useState<'progress' | 'review'>('progress');
  const isRunning = live?.status === 'running' || detail?.status === 'running';

  // While the run goes, its record is re-read (passes, diffs, validation) as the tree changes.
  useEffect(() => {
    if (!isRunning) return;
    const timer = setInterval(() => void useSolveStore.getState().refresh(), 1500);
    return () => clearInterval(timer);
  }, [isRunning]);
  useEffect(() => {
    if (live && live.status !== 'running') void useSolveStore.getState().refresh();
  }, [live?.status, live]);

  const tree = useMemo(() => (isRunning && live?.progress?.steps?.length ? live.progress.steps : detail ? treeOf(detail) : []), [isRunning, live, detail]);
  if (openError) return <p className="error-text" role="alert">{openError.message}</p>;
  if (!detail) return <p className="muted">{taskRunId ? 'Starting the run…' : 'Loading the run…'}</p>;
  const outcome = detail.outcome;
  return (
    <section className="run-view" aria-label="Solve run">
      <header className="plan-editor-head">
        <div>
          <h2>{detail.task}</h2>
          <span className="muted">
            {detail.mode === 'plan' ? 'one plan, implemented' : 'orchestrated'} · from {detail.baseCommit.slice(0, 10)} · started {new Date(detail.startedAt).toLocaleString()}
          </span>
        </div>
        <span className="spacer" />
        <span className={`badge run-status ${detail.status}`} data-testid="run-status">
          {isRunning ? 'running' : detail.status}
        </span>
        {isRunning && taskRunId ? (
          <button type="button" onClick={() => void cancel(taskRunId)}>
            Cancel
          </button>
        ) : null}
        {!isRunning && (detail.status === 'interrupted' || detail.status === 'cancelled') ? (
          <>
            <button type="button" onClick={() => void useSolveStore.getState().start({ task: detail.task, resume: detail.solveRunId })} title="Go on from the last completed step">
              Resume
            </button>
            <button type="button" onClick={() => void useSolveStore.getState().discard(detail.solveRunId)} title="End the run for good; its record and diffs stay">
              Discard
            </button>
          </>
        ) : null}
      </header>
      {outcome ? (
        <p className="run-outcome" data-testid="run-outcome">
          {outcome.status}: {outcome.completed.length} {outcome.completed.length === 1 ? 'step' : 'steps'} done
          {outcome.notCompleted.length ? `, not done: ${outcome.notCompleted.map((n) => `${n.partId}${n.stepId ? `/${n.stepId}` : ''}`).join(', ')}` : ''}
          {outcome.files.length ? ` · files: ${outcome.files.join(', ')}` : ''}
        </p>
      ) : null}
      {!isRunning && (detail.status === 'failed' || detail.status === 'partial') ? <RunFailure detail={detail} repoId={props.repoId} /> : null}
      <div className="segmented" role="tablist" aria-label="Run view">
        <button type="button" role="tab" aria-selected={tab === 'progress'} className={tab === 'progress' ? 'active' : ''} onClick={() => setTab('progress')}>
          Progress
        </button>
        <button type="button" role="tab" aria-selected={tab === 'review'} className={tab === 'review' ? 'active' : ''} onClick={() => setTab('review')} disabled={isRunning}>
          Review changes
        </button>
      </div>
      {tab === 'review' && !isRunning ? (
        <ReviewPanel repoId={props.repoId} runId={detail.solveRunId} />
      ) : (
        <div className="run-split">
          <nav aria-label="Progress tree">
            <Tree nodes={tree} selected={node} onSelect={setNode} />
          </nav>
          <div>{node ? <NodeDetail detail={detail} nodeId={node} repoId={props.repoId} /> : <p className="muted">Select a part, step or pass to see its output, diff, validation and model calls.</p>}</div>
        </div>
      )}
    </section>
  );
}
