import { ipcMain, type WebContents } from 'electron';
import type { Core } from '../core/app/createCore';
import { dispatch } from '../core/app/contract/dispatch';
import { IPC_EVENT_CHANNEL, IPC_INVOKE_CHANNEL } from '../shared/contract/bridge';

/**
 * Bind the contract to ipcMain: one generic channel, validated by `dispatch` (the renderer is
 * untrusted), and forward every engine event to the window until it is destroyed.
 */
export function bindContract(core: Core, target: WebContents): () => void {
  ipcMain.removeHandler(IPC_INVOKE_CHANNEL);
  ipcMain.handle(IPC_INVOKE_CHANNEL, (_event, method: unknown, input: unknown) =>
    dispatch(core.handlers, typeof method === 'string' ? method : '', input),
  );
  const unsubscribe = core.events.onAny((event, payload) => {
    if (!target.isDestroyed()) target.send(IPC_EVENT_CHANNEL, { event, payload });
  });
  target.once('destroyed', unsubscribe);
  return unsubscribe;
}
