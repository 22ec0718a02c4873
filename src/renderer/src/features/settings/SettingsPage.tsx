import { useJobsStore, jobsSelectors } from '../jobs/store';
import { EmptyState } from '../../components/EmptyState';

/** Settings: the configuration as a form. */
export function SettingsPage() {
  const info = useJobsStore(jobsSelectors.info);
  return (
    <EmptyState title="Settings">
      <p>Budgets, retrieval options, orchestrator limits and the model server address will be editable here.</p>
      <p>
        Data folder: <code>{info?.dataDir ?? '…'}</code>
      </p>
    </EmptyState>
  );
}
