import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { useRunsStore } from '../features/runs/store';
import { StatusBar } from './StatusBar';

afterEach(cleanup);

describe('the status bar job list', () => {
  it('lists running jobs with Cancel and says why a failed job failed', () => {
    useRunsStore.setState({
      engine: 'ok',
      runs: [
        { runId: 'r1', kind: 'index', subject: { repoId: 'shop' }, phases: ['parsing'], title: 'Index shop', status: 'running', startedAt: '2026-11-21T10:00:00Z', progress: { runId: 'r1', kind: 'index', phase: 'parsing', done: 5, total: 10 } },
        { runId: 'r2', kind: 'index', subject: { repoId: 'gone' }, phases: [], title: 'Index gone', status: 'failed', startedAt: '2026-11-21T09:00:00Z', error: { code: 'NOT_FOUND', message: 'No folder at /home/dev/gone.' } },
      ],
    });
    render(<StatusBar />);
    fireEvent.click(screen.getByRole('button', { name: /Index shop 50%/ }));
    const list = screen.getByRole('dialog', { name: 'Background jobs' });
    const rows = within(list).getAllByText(/^Index /).map((el) => el.closest('.job-row') as HTMLElement);
    expect(within(rows[0]!).getByRole('button', { name: 'Cancel' })).toBeTruthy();
    expect(within(rows[1]!).queryByRole('button', { name: 'Cancel' })).toBeNull();
    const reason = within(rows[1]!).getByText('No folder at /home/dev/gone.');
    expect(reason.getAttribute('title')).toBe('NOT_FOUND: No folder at /home/dev/gone.');
  });
});
