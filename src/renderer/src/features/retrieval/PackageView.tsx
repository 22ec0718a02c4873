import { useState } from 'react';
import { formatReasons, type PackageFile, type PackageItem, type RetrievalVerdict } from '../../../../shared/contract';
import { ProgressBar } from '../../components/ProgressBar';
import { budgetPercent, detailCounts, filesByTier, packageFileName, packageJson, tierLabel, unjudgedNote, VERDICT_KINDS, verdictsFor, type InspectionResult } from './reducers';
import { useOpenCall, VerdictChip } from './VerdictChip';

const DETAIL: Record<PackageItem['detail'], string> = { full: 'full source', signature: 'signature', file: 'whole file' };
const DETAIL_ORDER: Record<PackageItem['detail'], number> = { full: 0, signature: 1, file: 2 };

function Verdicts(props: { verdicts: RetrievalVerdict[]; onOpen(callId: number): void; none: string }) {
  if (props.verdicts.length === 0) return <span className="muted">{props.none}</span>;
  return (
    <span className="verdicts">
      {props.verdicts.map((v) => (
        <VerdictChip key={`${v.stage}-${v.callId ?? v.decision}`} verdict={v} onOpen={props.onOpen} />
      ))}
    </span>
  );
}

function FileCard(props: { file: PackageFile; verdicts: RetrievalVerdict[]; onOpen(callId: number): void }) {
  const { file } = props;
  const items = [...file.items].sort((a, b) => DETAIL_ORDER[a.detail] - DETAIL_ORDER[b.detail] || a.startLine - b.startLine);
  const tokens = file.headerTokens + file.items.reduce((n, i) => n + i.tokens, 0);
  return (
    <article className="package-file" data-testid="package-file" aria-label={file.path}>
      <div className="row package-file-head">
        <span className="mono package-path">{file.path}</span>
        <span className="muted">{formatReasons(file.reasons.filter((r) => !VERDICT_KINDS.has(r.kind)))}</span>
        <span className="grow" />
        <Verdicts verdicts={verdictsFor(props.verdicts, file.path)} onOpen={props.onOpen} none={file.tier <= 1 ? 'seed: not judged' : ''} />
        <span className="muted mono">{tokens} tok</span>
      </div>
      <table className="grid package-items">
        <colgroup>
          <col className="col-symbol" />
          <col className="col-role" />
          <col className="col-detail" />
          <col className="col-lines" />
          <col className="col-tokens" />
          <col />
        </colgroup>
        <tbody>
          {items.map((item) => {
            const subject = item.symbol ? `${file.path}:${item.symbol.qualifiedName}` : file.path;
            return (
              <tr key={`${item.startLine}-${item.symbol?.qualifiedName ?? ''}`} data-testid="package-item">
                <td className="mono">{item.symbol ? item.symbol.qualifiedName : <span className="muted">(whole file)</span>}</td>
                <td>{item.symbol ? <span className={`chip role-${item.symbol.role}`}>{item.symbol.role.replace('_', ' ')}</span> : null}</td>
                <td className={`detail-${item.detail}`}>{DETAIL[item.detail]}</td>
                <td className="muted mono fig" data-testid="item-lines">
                  {item.startLine}–{item.endLine}
                </td>
                <td className="muted mono fig" data-testid="item-tokens">
                  {item.tokens.toLocaleString('en')} tok
                </td>
                <td>
                  {item.symbol ? <Verdicts verdicts={verdictsFor(props.verdicts, subject)} onOpen={props.onOpen} none={unjudgedNote(item)} /> : null}
                  {item.reasons.some((r) => r.kind === 'demoted') ? <span className="muted"> · body did not fit the budget</span> : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </article>
  );
}

/** Copy the package as markdown, save it as JSON. */
function PackageActions(props: { result: InspectionResult; taskId: string }) {
  const [note, setNote] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.result.markdown);
      setNote('Copied the package as markdown.');
    } catch (error) {
      setNote(`Could not copy: ${(error as Error).message}`);
    }
  };
  const save = () => {
    const url = URL.createObjectURL(new Blob([packageJson(props.result)], { type: 'application/json' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = packageFileName(props.taskId);
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };
  return (
    <div className="row">
      <button type="button" onClick={() => void copy()}>
        Copy as markdown
      </button>
      <button type="button" onClick={save}>
        Save as JSON
      </button>
      {note ? (
        <span className="muted" role="status">
          {note}
        </span>
      ) : null}
    </div>
  );
}

/** The package: budget bar, files by tier with their relation, reasons and verdicts; symbols by detail level; what was judged out or dropped. */
export function PackageView(props: { result: InspectionResult; taskId: string; repoId: string; runId: string | null }) {
  const { result } = props;
  const pkg = result.package;
  const openCall = useOpenCall(props.repoId, props.runId);
  const s = result.summary;
  const detail = detailCounts(pkg);
  const judgedOut = result.verdicts.filter((v) => v.stage === 'scope' && v.decision === 'excluded');
  return (
    <section className="inspector-result" aria-label="Context package">
      <div className="panel budget">
        <div className="row">
          <strong>Budget</strong>
          <span data-testid="budget-figures">
            {pkg.budget.used.toLocaleString('en')} of {pkg.budget.tokens.toLocaleString('en')} tokens ({budgetPercent(pkg.budget)}%)
          </span>
          <span className="muted">
            · {s.files} files · {s.symbols.primary} primary, {s.symbols.supporting} supporting, {s.symbols.type_context} type context ({detail.full} in full source,{' '}
            {detail.signature} as signatures) · {s.judgments} judgments
            {s.dropped ? ` · ${s.dropped} dropped` : ''} · stages {result.stages.join(', ')}
          </span>
          <span className="grow" />
          <PackageActions result={result} taskId={props.taskId} />
        </div>
        <ProgressBar percent={budgetPercent(pkg.budget)} label="Budget used" className="budget-bar" />
        {s.analysis.enrichment !== 'ok' ? <p className="muted">Task analysis: deterministic only ({s.analysis.reason ?? s.analysis.enrichment}).</p> : null}
      </div>
      {pkg.files.length === 0 ? <p className="muted">The package is empty: nothing was kept for this task.</p> : null}
      {filesByTier(pkg).map(({ tier, files }) => (
        <section key={tier} className="tier" aria-label={tierLabel(tier)} data-testid={`tier-${tier}`}>
          <h2>
            {tierLabel(tier)} <span className="muted">({files.length})</span>
          </h2>
          {files.map((f) => (
            <FileCard key={f.path} file={f} verdicts={result.verdicts} onOpen={openCall} />
          ))}
        </section>
      ))}
      {judgedOut.length > 0 ? (
        <details className="panel">
          <summary>Judged out by scope ({judgedOut.length})</summary>
          <ul className="plain-list">
            {judgedOut.map((v) => (
              <li key={v.subject}>
                <span className="mono">{v.subject}</span> <VerdictChip verdict={v} onOpen={openCall} />
              </li>
            ))}
          </ul>
        </details>
      ) : null}
      {pkg.dropped.length > 0 ? (
        <details className="panel">
          <summary>Dropped for the budget ({pkg.dropped.length})</summary>
          <ul className="plain-list">
            {pkg.dropped.map((d) => (
              <li key={`${d.path}:${d.symbol ?? ''}`}>
                <span className="mono">
                  {d.path}
                  {d.symbol ? `:${d.symbol}` : ''}
                </span>{' '}
                <span className="muted">{formatReasons(d.reasons.slice(-1))}</span>
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </section>
  );
}
