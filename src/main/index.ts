import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { app, BrowserWindow, dialog, screen, session, shell } from 'electron';
import { createCore, type Core } from '../core/app/createCore';
import { packageRoot, resolveDataDir } from '../core/platform/paths';
import { RENDERER_CSP } from '../hosts/serve/csp';
import { bindContract } from './ipc';
import { installMenu } from './menu';
import { loadWindowState, saveWindowState } from './windowState';

let core: Core | undefined;
let mainWindow: BrowserWindow | undefined;
const dataDir = resolveDataDir();

/**
 * better-sqlite3 must be built for Electron's ABI, separately from the plain-Node build the CLI and
 * tests use; scripts/ensure-native.mjs puts that build here (see docs/native-modules.md).
 */
function electronSqliteBinding(): string | undefined {
  const file = join(packageRoot(), 'node_modules', '.cra-native', `electron-${process.versions.electron}`, 'better_sqlite3.node');
  return existsSync(file) ? file : undefined;
}

function createWindow(): void {
  const state = loadWindowState(dataDir);
  const visible = screen.getAllDisplays().some((d) => {
    const b = d.workArea;
    return state.x !== undefined && state.y !== undefined && state.x >= b.x - 50 && state.y >= b.y - 50 && state.x < b.x + b.width && state.y < b.y + b.height;
  });
  const window = new BrowserWindow({
    width: state.width,
    height: state.height,
    ...(visible ? { x: state.x, y: state.y } : {}),
    minWidth: 800,
    minHeight: 500,
    show: false,
    title: 'Clean Room',
    // The window and taskbar icon (Linux and Windows; macOS takes the bundle's icon).
    icon: join(packageRoot(), 'resources', 'icon.png'),
    webPreferences: {
      preload: join(__dirname, '../preload/index.js'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    },
  });
  if (state.isMaximized) window.maximize();
  window.once('ready-to-show', () => window.show());
  window.on('close', () => {
    const bounds = window.getNormalBounds();
    saveWindowState(dataDir, { ...bounds, isMaximized: window.isMaximized() });
  });
  if (!core) throw new Error('engine not started');
  bindContract(core, window.webContents);
  const devUrl = process.env.ELECTRON_RENDERER_URL;
  if (devUrl) void window.loadURL(devUrl);
  else void window.loadFile(join(__dirname, '../renderer/index.html'));
  mainWindow = window;
}

function lockDown(): void {
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [RENDERER_CSP] } });
  });
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  app.on('web-contents-created', (_event, contents) => {
    contents.on('will-navigate', (event, url) => {
      if (url !== contents.getURL()) event.preventDefault();
    });
    contents.setWindowOpenHandler(({ url }) => {
      // Links to the web open in the user's browser, never inside the app.
      if (url.startsWith('https://')) void shell.openExternal(url);
      return { action: 'deny' };
    });
    contents.on('will-attach-webview', (event) => event.preventDefault());
  });
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (mainWindow) {
      if (mainWindow.isMinimized()) mainWindow.restore();
      mainWindow.focus();
    }
  });
  app
    .whenReady()
    .then(() => {
      lockDown();
      installMenu();
      core = createCore({
        host: 'electron',
        dataDir,
        sqliteNativeBinding: electronSqliteBinding(),
        pickFolder: async (title) => {
          const options = { title: title ?? 'Add repository', properties: ['openDirectory' as const] };
          const result = mainWindow ? await dialog.showOpenDialog(mainWindow, options) : await dialog.showOpenDialog(options);
          return result.canceled ? null : (result.filePaths[0] ?? null);
        },
      });
      createWindow();
      app.on('activate', () => {
        if (BrowserWindow.getAllWindows().length === 0) createWindow();
      });
    })
    .catch((error: unknown) => {
      dialog.showErrorBox('Clean Room could not start', error instanceof Error ? error.message : String(error));
      app.quit();
    });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('will-quit', () => {
    void core?.dispose();
  });
}
