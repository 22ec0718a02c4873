import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConfigSnapshot } from '../../../../shared/contract';
import { setClientForTests, type Client } from '../../lib/client';
import { SettingsPage } from './SettingsPage';
import { useSettingsStore } from './store';

const config: ConfigSnapshot = { path: '/home/dev/.cra/config.toml', exists: true, values: { models: { max_tokens: 2048, temperature: 0.2 } }, error: null };
let writes: unknown[];

beforeEach(() => {
  writes = [];
  useSettingsStore.setState({ config: null, drafts: {}, error: null, savedAt: null, isSaving: false });
  setClientForTests({
    call: (async (method: string, input: { edits?: unknown }) => {
      if (method === 'config/get') return config;
      if (method === 'config/set') {
        writes.push(input.edits);
        return config;
      }
      throw new Error(`not in this test: ${method}`);
    }) as Client['call'],
    subscribe: () => () => {},
  });
});
afterEach(cleanup);

describe('Settings: unsaved edits', () => {
  it('are kept when the page is left and shown again, said to be unsaved, and dropped only by Discard', async () => {
    const first = render(<SettingsPage />);
    fireEvent.change(await screen.findByDisplayValue('2048'), { target: { value: '4096' } });
    expect(screen.getByRole('status').textContent).toContain('1 unsaved change: Max tokens.');
    // Leave the page (it unmounts) and come back: the page loads the config again.
    first.unmount();
    render(<SettingsPage />);
    expect(await screen.findByDisplayValue('4096')).toBeTruthy();
    expect(screen.getByRole('status').textContent).toContain('1 unsaved change');
    expect(screen.getByRole('button', { name: 'Save (1)' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Discard' }));
    expect(screen.getByDisplayValue('2048')).toBeTruthy();
    expect(screen.queryByRole('status')).toBeNull();
    expect(writes).toEqual([]);
  });

  it('are cleared once saved', async () => {
    render(<SettingsPage />);
    fireEvent.change(await screen.findByDisplayValue('2048'), { target: { value: '4096' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save (1)' }));
    expect(await screen.findByText('Saved')).toBeTruthy();
    expect(writes).toEqual([[{ path: ['models', 'max_tokens'], value: 4096 }]]);
    expect(useSettingsStore.getState().drafts).toEqual({});
  });
});
