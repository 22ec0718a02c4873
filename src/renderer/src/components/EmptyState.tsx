import type { ReactNode } from 'react';

/** What a page shows before it has anything: what will be here, and the first thing to do. */
export function EmptyState(props: { title: string; children: ReactNode; action?: ReactNode }) {
  return (
    <section className="empty-state" aria-label={props.title}>
      <h2>{props.title}</h2>
      <div className="empty-body">{props.children}</div>
      {props.action ? <div className="empty-action">{props.action}</div> : null}
    </section>
  );
}
