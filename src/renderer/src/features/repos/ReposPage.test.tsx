import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError, type EventKey, type EventPayload, type RepoInfo } from '../../../../shared/contract';
import { useNavStore } from '../../app/store/navStore';
import { setClientForTests, type Client } from '../../lib/client';
import { useRunsStore } from '../runs/store';
import { ReposPage } from './ReposPage';
import { useReposStore } from './store';

const stats = { files: 0, symbols: 0, references: 0, dependencies: 0, commits: 0, coChangePairs: 0, chunks: 0, languages: {} };
const shop: RepoInfo = { id: 'shop-1a2b3c4d', name: 'shop', path: '/home/dev/shop', status: 'indexing', lastIndexedAt: null, stats, watching: true };

/** A client answering from memory, recording calls, and able to push events like the engine. */
function fakeClient() {
  const calls: Array<{ method: string; input: unknown }> = [];
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  const registered = new Set<string>();
  const client: Client = {
    call: (async (method: string, input: Record<string, unknown>) => {
      calls.push({ method, input });
      if (method === 'repos/list' || method === 'run/list') return [];
      if (method === 'repos/find' || method === 'repos/add') {
        // Like the engine: a trailing slash is the same folder.
        const path = String(input.path).replace(/\/+$/, '');
        if (path !== '/home/dev/shop') throw new AppError('NOT_FOUND', `No folder at ${String(input.path)}.`);
        if (method === 'repos/find') return registered.has(path) ? shop : null;
        registered.add(path);
        const run = { runId: 'index-1', kind: 'index', subject: { repoId: shop.id }, title: 'Index shop', status: 'running', startedAt: '2026-01-01T00:00:00Z' };
        return { repo: shop, run, runId: run.runId };
      }
      // The shop is a git repository: it is never counted and never needs a confirmation.
      if (method === 'repos/probe') return { path: String(input.path), isGit: true, files: null, capped: false };
      if (method === 'repos/remove') return { removed: true };
      if (method === 'run/cancel') return { cancelled: true };
      throw new AppError('UNSUPPORTED', `not in this test: ${method}`);
    }) as Client['call'],
    subscribe: (event: EventKey, callback: (payload: never) => void) => {
      const set = listeners.get(event) ?? new Set();
      set.add(callback as (payload: unknown) => void);
      listeners.set(event, set);
      return () => set.delete(callback as (payload: unknown) => void);
    },
  };
  const emit = <K extends EventKey>(event: K, payload: EventPayload<K>) => act(() => listeners.get(event)?.forEach((cb) => cb(payload)));
  return { client, calls, emit };
}

let fake: ReturnType<typeof fakeClient>;
let disconnect: () => void;

beforeEach(async () => {
  fake = fakeClient();
  setClientForTests(fake.client);
  useNavStore.setState({ page: 'repositories', repoId: null });
  useRunsStore.setState({ info: null, runs: [], early: {} });
  useReposStore.setState({ repos: [], skipped: {}, isLoaded: false, errors: {}, isAdding: false });
  const offs = [useRunsStore.getState().connect(), useReposStore.getState().connect()];
  disconnect = () => offs.forEach((off) => off());
  await useReposStore.getState().load();
});
afterEach(() => {
  disconnect();
  cleanup();
});

describe('the Repositories page', () => {
  it('adds a folder by path, shows the engine error inline, then the indexing progress with Cancel', async () => {
    render(<ReposPage />);
    const input = screen.getByLabelText('Repository folder path');
    fireEvent.change(input, { target: { value: '/nope' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add repository' }));
    expect((await screen.findByRole('alert')).textContent).toContain('No folder at /nope.');

    fireEvent.change(input, { target: { value: '/home/dev/shop' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add repository' }));
    expect(await screen.findByText('shop')).toBeTruthy();
    expect(useNavStore.getState().repoId).toBe('shop-1a2b3c4d');

    fake.emit('run/progress', { runId: 'index-1', kind: 'index', phase: 'parsing', done: 50, total: 200, rate: 40, etaSeconds: 4 });
    const bar = screen.getByRole('progressbar');
    expect(bar.getAttribute('aria-valuenow')).toBe('25');
    expect(screen.getByTestId('index-progress').textContent).toContain('40 files/s · ETA 4 s');
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(fake.calls.at(-1)).toEqual({ method: 'run/cancel', input: { runId: 'index-1' } });

    const summary = { files: 12, symbols: 80, references: 0, dependencies: 0, commits: 0, coChangePairs: 0, chunks: 0, skipped: [], parsed: 12, removed: 0, durationMs: 2840, phaseMs: { scanning: 36, parsing: 2164, saving: 107 } };
    fake.emit('run/finished', { runId: 'index-1', kind: 'index', status: 'done', result: summary });
    fake.emit('repos/changed', { ...shop, status: 'ready', lastIndexedAt: new Date().toISOString(), stats: { ...stats, files: 12, symbols: 80, references: 1530, dependencies: 1, commits: 1, languages: { python: 9 } } });
    expect(screen.queryByRole('progressbar')).toBeNull();
    const row = screen.getByTestId('repo-row');
    expect(within(row).getByTestId('repo-status').textContent).toBe('ready');
    expect(within(row).getByTestId('repo-files').textContent).toBe('12');
    expect(within(row).getByText('python')).toBeTruthy();
    expect(within(row).getByText('just now')).toBeTruthy();
    expect(screen.getByTestId('last-index-run').textContent).toBe('Last index run: 2.84 s, 12 files parsed, 0 removed — scanning 36 ms · parsing 2.16 s · saving 107 ms');
    expect(screen.getByLabelText('Details of shop').textContent).toContain('shop: 1,530 references · 1 file dependency · 1 commit · 0 co-change pairs · 0 search chunks');
  });

  it('removes a repository only after the in-page confirmation', async () => {
    useReposStore.setState({ repos: [{ ...shop, status: 'ready' }] });
    render(<ReposPage />);
    fireEvent.click(screen.getByRole('button', { name: 'Remove' }));
    const dialog = screen.getByRole('alertdialog');
    expect(dialog.textContent).toContain('Only our index of it is deleted');
    expect(fake.calls.some((c) => c.method === 'repos/remove')).toBe(false);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Keep' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();

    fireEvent.click(screen.getByRole('button', { name: 'Remove' }));
    await act(async () => fireEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Remove index' })));
    expect(fake.calls.at(-1)).toEqual({ method: 'repos/remove', input: { repoId: 'shop-1a2b3c4d' } });
    expect(await screen.findByLabelText('Repository folder path')).toBeTruthy();
    expect(screen.queryByTestId('repo-row')).toBeNull();
  });

  it('says a folder is already added and selects it instead of starting a run', async () => {
    render(<ReposPage />);
    const input = screen.getByLabelText('Repository folder path');
    fireEvent.change(input, { target: { value: '/home/dev/shop' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add repository' }));
    expect(await screen.findByText('shop')).toBeTruthy();
    act(() => useNavStore.getState().selectRepo(null));

    fireEvent.change(screen.getByLabelText('Repository folder path'), { target: { value: '/home/dev/shop/' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add repository' }));
    expect((await screen.findByTestId('add-notice')).textContent).toBe('shop is already added (/home/dev/shop); it is selected below.');
    expect(useNavStore.getState().repoId).toBe('shop-1a2b3c4d');
    expect(fake.calls.filter((c) => c.method === 'repos/add')).toHaveLength(1);
  });

  it('notes that a folder outside git has no history, on its row and in its details', async () => {
    useReposStore.setState({ repos: [{ ...shop, status: 'ready', git: false }] });
    useNavStore.setState({ repoId: shop.id });
    render(<ReposPage />);
    expect(within(screen.getByTestId('repo-row')).getByTestId('no-git').textContent).toBe('no git history');
    expect(screen.getByTestId('no-git-note').textContent).toContain('/home/dev/shop is not a git repository');
    act(() => useReposStore.setState({ repos: [{ ...shop, status: 'ready', git: true }] }));
    expect(screen.queryByTestId('no-git')).toBeNull();
    expect(screen.queryByTestId('no-git-note')).toBeNull();
  });

  it('shows a phase that reports no count without a bare 0, and counts embedding in chunks', async () => {
    useReposStore.setState({ repos: [shop] });
    render(<ReposPage />);
    fake.emit('run/started', { runId: 'index-1', kind: 'index', title: 'Index shop', status: 'running', startedAt: '2026-01-01T00:00:00Z', subject: { repoId: shop.id } });
    fake.emit('run/progress', { runId: 'index-1', kind: 'index', phase: 'references', done: 0, message: 'Resolving imports and references' });
    const bar = screen.getByRole('progressbar');
    expect(bar.getAttribute('aria-valuenow')).toBeNull();
    expect(bar.className).toContain('indeterminate');
    expect(screen.getByTestId('progress-figures').textContent).toBe('');
    expect(screen.getByTestId('index-progress').textContent).toContain('Resolving imports and references');
    fake.emit('run/finished', { runId: 'index-1', kind: 'index', status: 'done' });

    fake.emit('run/started', { runId: 'embed-1', kind: 'embed', title: 'Embedding shop', status: 'running', startedAt: '2026-01-01T00:00:01Z', subject: { repoId: shop.id } });
    fake.emit('run/progress', { runId: 'embed-1', kind: 'embed', phase: 'embeddings', done: 64, total: 640, rate: 30, etaSeconds: 19 });
    expect(screen.getByTestId('progress-figures').textContent).toBe('64/640 chunks · 30 chunks/s · ETA 19 s');
  });
});
