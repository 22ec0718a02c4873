import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { CraBridge } from '../shared/contract/bridge';

// Kept literal (not imported) so the sandboxed preload bundle stays tiny; main uses the same names.
const INVOKE = 'cra:invoke';
const EVENT = 'cra:event';

/** The whole bridge: one generic invoke and one generic subscribe. No per-method wrappers. */
const bridge: CraBridge = {
  invoke: (method, input) => ipcRenderer.invoke(INVOKE, method, input),
  subscribe: (event, callback) => {
    const listener = (_e: IpcRendererEvent, message: { event: string; payload: unknown }) => {
      if (message.event === event) callback(message.payload as never);
    };
    ipcRenderer.on(EVENT, listener);
    return () => {
      ipcRenderer.removeListener(EVENT, listener);
    };
  },
};

contextBridge.exposeInMainWorld('cra', bridge);
