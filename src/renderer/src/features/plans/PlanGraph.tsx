import type { Plan } from '../../../../shared/contract/plans';
import { planDraft } from './draft';

const ROW = 30;
const WIDTH = 260;

/**
 * The execution order as a small dependency graph: one box per file, top to bottom in order, an
 * arc from each file to the files that depend on it. An arc that points upwards goes against the
 * order and is drawn in the danger colour (the validation says the same in words).
 */
export function PlanGraph(props: { plan: Plan }) {
  const order = props.plan.execution_order;
  const at = new Map(order.map((p, i) => [p, i]));
  const edges = planDraft.edges(props.plan).filter((e) => at.has(e.before) && at.has(e.after));
  const height = Math.max(order.length * ROW, ROW);
  const name = (path: string) => (path.length > 30 ? `…${path.slice(-29)}` : path);
  return (
    <svg className="plan-graph" role="img" aria-label="Dependency graph" width={WIDTH} height={height} viewBox={`0 0 ${WIDTH} ${height}`}>
      {edges.map((e, i) => {
        const from = at.get(e.before)! * ROW + ROW / 2;
        const to = at.get(e.after)! * ROW + ROW / 2;
        const bend = 30 + Math.abs(to - from) / 3;
        const backwards = to < from;
        return (
          <path
            key={i}
            data-testid={backwards ? 'edge-backwards' : 'edge'}
            className={backwards ? 'edge backwards' : 'edge'}
            d={`M ${WIDTH - 60} ${from} C ${WIDTH - 60 + bend} ${from}, ${WIDTH - 60 + bend} ${to}, ${WIDTH - 60} ${to}`}
            markerEnd="url(#plan-arrow)"
          >
            <title>{`${e.after} depends on ${e.before}`}</title>
          </path>
        );
      })}
      <defs>
        <marker id="plan-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse">
          <path d="M 0 0 L 10 5 L 0 10 z" className="arrow-head" />
        </marker>
      </defs>
      {order.map((path, i) => (
        <g key={path} transform={`translate(0 ${i * ROW})`}>
          <rect x={2} y={4} width={WIDTH - 64} height={ROW - 8} rx={4} className="node" />
          <text x={10} y={ROW / 2 + 4} className="node-label">
            {`${i + 1}. ${name(path)}`}
          </text>
        </g>
      ))}
    </svg>
  );
}
