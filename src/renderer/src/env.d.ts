/// <reference types="vite/client" />
import type { CraBridge } from '../../shared/contract/bridge';

declare global {
  interface Window {
    /** Present in Electron (preload); absent in the browser, where the client speaks WebSocket. */
    cra?: CraBridge;
  }
}
