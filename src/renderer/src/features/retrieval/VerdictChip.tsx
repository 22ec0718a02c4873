import type { RetrievalJudgment, RetrievalVerdict } from '../../../../shared/contract';
import { useNavStore } from '../../app/store/navStore';
import { useLogsStore } from '../logs/store';
import { stageLabel } from './reducers';

/** Open a model call of a repository's log in the Logs page, with its run's calls beside it. */
export function useOpenCall(repoId: string, runId: string | null) {
  const go = useNavStore((s) => s.go);
  return (callId: number) => {
    void useLogsStore.getState().openCall({ repoId, callId, ...(runId ? { runId } : {}) });
    go('logs');
  };
}

/** Show a retrieve run's model calls in the Logs page. */
export function useOpenRun(repoId: string) {
  const go = useNavStore((s) => s.go);
  return (runId: string) => {
    void useLogsStore.getState().openRun({ repoId, runId });
    go('logs');
  };
}

/** One verdict: stage, yes/no (a default-deny says so), P(yes) when known; a link to its model call when there is one. */
export function VerdictChip(props: { verdict: Pick<RetrievalVerdict | RetrievalJudgment, 'stage' | 'verdict' | 'read' | 'pYes' | 'callId'>; onOpen(callId: number): void; showStage?: boolean }) {
  const v = props.verdict;
  const deny = v.read === 'default-deny';
  const text = `${props.showStage === false ? '' : `${stageLabel(v.stage)} `}${deny ? 'no (default-deny)' : v.verdict}${v.pYes !== undefined ? ` · P ${v.pYes.toFixed(2)}` : ''}`;
  const className = `verdict verdict-${deny ? 'deny' : v.verdict}`;
  if (v.callId === undefined) return <span className={className}>{text}</span>;
  const callId = v.callId;
  return (
    <button type="button" className={className} title={`Open model call #${callId} in Logs`} aria-label={`${text}: open call ${callId} in Logs`} onClick={() => props.onOpen(callId)}>
      {text}
    </button>
  );
}
