import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError, type ChatTrace } from '../../../../shared/contract';
import { useNavStore } from '../../app/store/navStore';
import { setClientForTests, type Client } from '../../lib/client';
import { useLogsStore } from '../logs/store';
import { pendingTurn, type Turn } from './reducers';
import { useChatStore } from './store';
import { TracePanel } from './TracePanel';

const base: ChatTrace = {
  route: { mode: 'BM25', query: 'load_config', source: 'model', raw: '[BM25:] load_config', thinking: false },
  intent: 'SEARCH',
  searchMode: 'keyword',
  notes: ['a note'],
  expansion: { seeds: 2, added: 1, depth: 1, decay: 0.7 },
  evidenceTokens: 120,
  budgetTokens: 4000,
};
const turnWith = (trace: Record<string, unknown>): Turn => ({
  ...pendingTurn('Where?'),
  runId: 'chat-1',
  status: 'done',
  trace: trace as unknown as ChatTrace,
  sources: [
    { path: 'config.py', startLine: 1, endLine: 9, score: 2.5, role: 'seed', why: [] },
    { path: 'app.py', startLine: 3, endLine: 8, score: 0.9, role: 'seed', excerpt: true, why: [] },
  ],
});

let calls: Array<{ method: string; input: Record<string, unknown> }>;
beforeEach(() => {
  calls = [];
  setClientForTests({
    call: (async (method: string, input: Record<string, unknown>) => {
      calls.push({ method, input });
      if (method === 'logs/list') return { total: 0, calls: [] };
      if (method === 'logs/get') throw new AppError('NOT_FOUND', 'not in this test');
      throw new AppError('UNSUPPORTED', `not in this test: ${method}`);
    }) as Client['call'],
    subscribe: () => () => {},
  });
  useChatStore.setState({ repoId: 'shop', callsByRun: {} });
});
afterEach(cleanup);

describe('How this answer was made', () => {
  it('shows the route, hits and graph; the calls come from the repository log when the trace has none', async () => {
    render(<TracePanel turn={turnWith({ ...base })} openAt={() => {}} />);
    fireEvent.click(screen.getByText(/How this answer was made/));
    // The summary in product words: the route and the kind of question, not the router's mode names.
    expect(screen.getByText(/How this answer was made/).textContent).not.toMatch(/BM25|SEARCH/);
    expect(screen.getByLabelText('Router reply').textContent).toBe('[BM25:] load_config');
    const hits = within(screen.getByRole('table', { name: 'Hits' }));
    expect(hits.getAllByRole('button').map((b) => b.textContent)).toEqual(['config.py:1-9', 'app.py:3-8']);
    // A file sent as a few lines, not its body, says so.
    expect(hits.getAllByRole('row').map((r) => r.children[1]!.textContent)).toEqual(['seed', 'seed, excerpt']);
    expect(screen.getByText('2 seeds → 1 neighbours (depth 1, decay 0.7)')).toBeTruthy();
    await waitFor(() => expect(calls).toEqual([{ method: 'logs/list', input: { repoId: 'shop', runId: 'chat-1', errorsOnly: false, limit: 100, offset: 0 } }]));
    await waitFor(() => expect(screen.getByText('none logged yet')).toBeTruthy());
  });

  it('shows the fields a newer engine adds (rounds, calls with prompts, steps, history, loops) and any unknown one raw', async () => {
    const trace = {
      ...base,
      rounds: [
        { round: 0, mode: 'BM25', searchMode: 'keyword', queries: ['load_config'], hits: [{ path: 'config.py', score: 2.5 }], expansion: { seeds: 1, added: 1, depth: 1, decay: 0.7, byEdge: { imports: 1 } }, fetched: 3, excerpts: 1, evidenceTokens: 120, budgetTokens: 4000, budget: 'fits', notes: [] },
        { round: 1, request: 'the callers of load_config', mode: 'BM25', searchMode: 'keyword', queries: ['load_config callers'], hits: [], budget: 'summarized', summary: 'main() calls it', notes: ['one more round'] },
      ],
      calls: [{ purpose: 'answer', stage: 'chat', callId: 42, model: 'qwen3:0.6b', system: 'You answer…', prompt: '## Evidence…', reply: '[Answer:] …', promptTokens: 10, completionTokens: 3, latencyMs: 5, round: 0 }],
      steps: [{ id: 'translate_in', action: 'translate_in_if_needed', outcome: 'ok', ms: 1 }, { id: 'route', action: 'route', outcome: 'BM25', ms: 3 }],
      history: { messages: 2, tokens: 50, budgetTokens: 1000, summary: { text: 'Earlier: settings.', throughMessageId: 4, created: true }, notes: [] },
      loops: { used: 1, max: 2, requests: ['the callers of load_config'], exhausted: false },
      somethingNew: { answer: 42 },
    };
    render(<TracePanel turn={turnWith(trace)} openAt={() => {}} />);
    fireEvent.click(screen.getByText(/How this answer was made/));
    const rounds = screen.getAllByTestId('chat-trace-round');
    expect(rounds).toHaveLength(2);
    expect(rounds[1]!.textContent).toContain('Round 1 · asked for “the callers of load_config”');
    expect(rounds[0]!.textContent).toContain('graph: 1 seeds → 1 neighbours (imports 1)');
    expect(rounds[0]!.textContent).toContain('2 bodies + 1 excerpts');
    expect(screen.getByLabelText('Evidence summary').textContent).toBe('main() calls it');
    expect(screen.getByLabelText('Prompt').textContent).toBe('## Evidence…');
    expect(screen.getByText(/1 of 2/).textContent).toContain('“the callers of load_config”');
    expect(screen.getByLabelText('History summary').textContent).toBe('Earlier: settings.');
    expect(screen.getByText('somethingNew')).toBeTruthy();
    // Steps and calls in words; the identifiers only in tooltips.
    expect(screen.getByText('Translate the question').getAttribute('title')).toBe('translate_in');
    expect(screen.queryByText('translate_in')).toBeNull();
    expect(screen.getByText('Write the answer').getAttribute('title')).toBe('answer');
    expect(screen.getByText(/"answer": 42/)).toBeTruthy();
    // The trace lists its calls: the log is not read, and a call opens in Logs, in the repository's log.
    fireEvent.click(screen.getByRole('button', { name: '#42 in Logs' }));
    await waitFor(() => expect(calls.map((c) => c.method)).toEqual(['logs/list', 'logs/get']));
    expect(calls[0]!.input).toMatchObject({ repoId: 'shop', runId: 'chat-1' });
    expect(useNavStore.getState().page).toBe('logs');
    expect(useLogsStore.getState()).toMatchObject({ repoId: 'shop', filters: { runId: 'chat-1' } });
  });
});
