import type { EvalReport } from '../../../../shared/contract';
import { comparisonVerdicts } from '../../../../shared/evalComparisons';
import { missCutoff, missedTasks } from './reducers';
import { RecallChart } from './RecallChart';
import { TaskTable } from './TaskTable';

const f3 = (n: number | undefined) => (n === undefined ? '-' : n.toFixed(3));

/** One report: the chart, the summary table, timing and the misses of each method. */
export function ReportView(props: { report: EvalReport }) {
  const { report } = props;
  const k = missCutoff(report);
  const failed = report.tasks.filter((t) => t.error);
  return (
    <section className="eval-report" aria-label="Evaluation report">
      <div className="muted">
        {report.repoPath} at <span className="mono">{report.head.slice(0, 12)}</span> · {report.tasks.length} tasks ·{' '}
        {new Date(report.createdAt).toLocaleString()} · index {report.timing.indexMsMean} ms/task · total {(report.timing.totalMs / 1000).toFixed(1)} s
      </div>
      <RecallChart report={report} />
      <table className="grid compact eval-summary" aria-label="Summary">
        <thead>
          <tr>
            <th>Method</th>
            {report.ks.map((kk) => (
              <th key={`r${kk}`} className="num">R@{kk}</th>
            ))}
            {report.ks.map((kk) => (
              <th key={`a${kk}`} className="num">All@{kk}</th>
            ))}
            <th className="num">MRR</th>
            <th className="num">ms/task</th>
          </tr>
        </thead>
        <tbody>
          {report.methods.map((m) => (
            <tr key={m}>
              <td>{m}</td>
              {report.ks.map((kk) => (
                <td key={`r${kk}`} className="num">{f3(report.summary[m]?.recallAt[kk])}</td>
              ))}
              {report.ks.map((kk) => (
                <td key={`a${kk}`} className="num">{f3(report.summary[m]?.allGoldAt[kk])}</td>
              ))}
              <td className="num">{f3(report.summary[m]?.mrr)}</td>
              <td className="num">{report.timing.methodMsMean[m] ?? 0}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <Verdicts report={report} />
      {report.notes.map((note) => (
        <p key={note} className="muted">{note}</p>
      ))}
      {failed.map((t) => (
        <p key={t.id} className="error-text">Task {t.id} failed: {t.error}</p>
      ))}
      <TaskTable report={report} k={k} />
      {report.methods.map((method) => (
        <Misses key={method} report={report} method={method} k={k} />
      ))}
    </section>
  );
}

/** Which reference each search beats at recall@5 and @10 (reports stored before this have none). */
function Verdicts(props: { report: EvalReport }) {
  const verdicts = comparisonVerdicts(props.report.comparisons ?? []);
  if (verdicts.length === 0) return null;
  return (
    <ul className="eval-verdicts" aria-label="Against the references">
      {verdicts.map((v) => (
        <li key={`${v.method}-${v.reference}`} className={v.beatsAll ? 'beats' : undefined}>
          {v.text}
        </li>
      ))}
    </ul>
  );
}

function Misses(props: { report: EvalReport; method: EvalReport['methods'][number]; k: number }) {
  const misses = missedTasks(props.report, props.method, props.k);
  return (
    <details className="eval-misses" open={props.method === props.report.methods[0]}>
      <summary>
        Misses of {props.method}: {misses.length} task(s) with no gold file in the top {props.k}
      </summary>
      <ul aria-label={`Misses of ${props.method}`}>
        {misses.map((task) => {
          const result = task.results[props.method]!;
          return (
            <li key={task.id} className="eval-miss">
              <div className="miss-task">
                <span className="mono muted">{task.id}</span> {task.task.split('\n')[0]}
              </div>
              <div>
                gold:{' '}
                {task.gold.map((g) => (
                  <span key={g} className="chip mono">
                    {g} {result.goldRanks[g] ? `#${result.goldRanks[g]}` : '(not ranked)'}
                  </span>
                ))}
              </div>
              {result.ranked.length === 0 ? (
                <div className="muted">ranked nothing: no word of the task matched</div>
              ) : (
                <ol className="miss-ranked mono" aria-label="Ranked instead">
                  {result.ranked.slice(0, 5).map((path) => (
                    <li key={path}>{path}</li>
                  ))}
                </ol>
              )}
            </li>
          );
        })}
      </ul>
    </details>
  );
}
