import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RepoInfo } from '../../../../shared/contract';
import { useNavStore } from '../../app/store/navStore';
import { setClientForTests, type Client } from '../../lib/client';
import { useReposStore } from '../repos/store';
import { LogsPage } from './LogsPage';
import { useLogsStore } from './store';

let lists: Array<Record<string, unknown>>;
const repo = (id: string, name: string) => ({ id, name, path: `/home/dev/${name}` }) as RepoInfo;

beforeEach(() => {
  lists = [];
  setClientForTests({
    call: (async (method: string, input: Record<string, unknown>) => {
      if (method !== 'logs/list') throw new Error(`not in this test: ${method}`);
      lists.push(input);
      return { total: 0, calls: [] };
    }) as Client['call'],
    subscribe: () => () => {},
  });
  useReposStore.setState({ repos: [repo('shop-1', 'shop'), repo('farm-2', 'farm')] });
  useNavStore.setState({ repoId: 'shop-1' });
  useLogsStore.setState({ repoId: null, scope: 'repository', selected: null });
});
afterEach(cleanup);

describe('Logs: one repository, the app’s', () => {
  it("shows the current repository's log, follows the app's repository, and has no picker of its own besides app-wide", async () => {
    render(<LogsPage />);
    await waitFor(() => expect(lists.at(-1)).toMatchObject({ repoId: 'shop-1' }));
    expect(screen.getAllByRole('combobox')).toHaveLength(1);
    const log = screen.getByRole('combobox', { name: 'Log' }) as HTMLSelectElement;
    expect([...log.options].map((o) => o.textContent)).toEqual(['shop', 'app-wide (model tests, downloads)']);
    // The top bar's picker changes the repository: the log follows.
    act(() => useNavStore.getState().selectRepo('farm-2'));
    await waitFor(() => expect(lists.at(-1)).toMatchObject({ repoId: 'farm-2' }));
    expect(log.options[0]?.textContent).toBe('farm');
    // The app-wide log stays chosen while the repository changes.
    fireEvent.change(log, { target: { value: 'app' } });
    await waitFor(() => expect(lists.at(-1)).not.toHaveProperty('repoId'));
    const asked = lists.length;
    act(() => useNavStore.getState().selectRepo('shop-1'));
    await waitFor(() => expect(lists.length).toBeGreaterThan(asked));
    expect(lists.at(-1)).not.toHaveProperty('repoId');
    expect(log.value).toBe('app');
  });
});
