// The Electron shell: a thin, locked-down host around the session. All behaviour lives in
// main/core; this file only wires the session to one window, the tray and the IPC transport.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { app, dialog, ipcMain, session, type BrowserWindow, type Tray } from 'electron';
import { createSession, defaultConfigPath, type Session } from '../core/session/session';
import { DataFolderError } from '../core/config/data-folder';
import { log, startLogging } from '../core/logging/log';
import { watchTrayState } from '../core/notices/tray/tray-watch';
import { createIpcServer, type IpcServer } from '../rpc/ipc-transport';
import { showDesktopNotice } from './notifications';
import { hardenSession, hardenWebContents } from './harden';
import { configPathFromArgv, nativeBindingPath } from './launch-options';
import { contentSecurityPolicy, isTrustedSenderUrl, type RendererLocation } from './security';
import { createTray, showTrayState, windowIconImage } from './tray';
import { createMainWindow, revealWindow } from './window';

// Bundled to out/main/index.js (ESM); the preload and the renderer are its siblings under out/.
const here = path.dirname(fileURLToPath(import.meta.url));
const preloadPath = path.join(here, '../preload/index.cjs');
const rendererFile = path.join(here, '../renderer/index.html');

// ELECTRON_RENDERER_URL is set by `electron-vite dev`. A packaged app ignores it: otherwise anyone
// able to set an environment variable could point the trusted window (and its IPC) at their server.
const devServerUrl = !app.isPackaged ? process.env['ELECTRON_RENDERER_URL'] : undefined;
const renderer: RendererLocation = {
  fileUrl: pathToFileURL(rendererFile).href,
  ...(devServerUrl ? { devServerUrl } : {}),
};

let mainWindow: BrowserWindow | undefined;
// Module-level so the tray is not garbage-collected (which would remove the icon).
let tray: Tray | undefined;
let stopTrayWatch: (() => void) | undefined;
let core: Session | undefined;
let ipc: IpcServer | undefined;
let quitting = false;
let closed = false;

function showWindow(): void {
  if (!app.isReady()) return;
  if (!mainWindow || mainWindow.isDestroyed()) {
    mainWindow = createMainWindow({
      preloadPath,
      load: devServerUrl ? { kind: 'url', url: devServerUrl } : { kind: 'file', file: rendererFile },
      icon: windowIconImage(),
      isQuitting: () => quitting,
    });
    return;
  }
  revealWindow(mainWindow);
}

function quit(): void {
  quitting = true;
  app.quit();
}

function startSession(): Session {
  const bindingPath = nativeBindingPath({ isPackaged: app.isPackaged, resourcesPath: process.resourcesPath, appPath: app.getAppPath() });
  // The log lives in the data folder: <userData>/logs/loopdeck.log.
  startLogging(app.getPath('userData'), 'electron');
  const session = createSession({
    configPath: configPathFromArgv(process.argv) ?? defaultConfigPath(),
    dataDir: app.getPath('userData'),
    shell: 'electron',
    ...(existsSync(bindingPath) ? { nativeBinding: bindingPath } : {}),
  });
  // The same start gate as serve: the window's commands wait until the session is open.
  ipc = createIpcServer({
    session,
    ipcMain,
    isTrustedSender: (url) => isTrustedSenderUrl(url, renderer),
    send: (channel, frame) => {
      if (mainWindow && !mainWindow.isDestroyed()) mainWindow.webContents.send(channel, frame);
    },
  });
  session.subscribe((event, payload) => {
    if (event === 'notice.raised') {
      showDesktopNotice(payload, (hash) => {
        showWindow();
        ipc?.publish('app.navigate', { hash });
      });
    }
  });
  session.start().catch((err: unknown) => log.error('the session failed to start', err));
  return session;
}

function main(): void {
  if (!app.requestSingleInstanceLock()) {
    // Another Loopdeck is running; it gets our argv through 'second-instance' and shows itself.
    app.quit();
    return;
  }
  app.enableSandbox();

  app.on('second-instance', () => showWindow());
  app.on('activate', () => showWindow());
  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents, renderer));
  // Stay alive in the tray when every window is gone; quitting is explicit (tray menu, Cmd+Q).
  app.on('window-all-closed', () => undefined);
  app.on('before-quit', () => {
    quitting = true;
  });
  app.on('will-quit', (event) => {
    stopTrayWatch?.();
    tray?.destroy();
    tray = undefined;
    if (closed || !core) return;
    // Let the session finish its store transaction and close SSH connections before exiting.
    event.preventDefault();
    closed = true;
    ipc?.close();
    core
      .close()
      .catch((err: unknown) => log.error('error while closing the session', err))
      .finally(() => app.quit());
  });

  app
    .whenReady()
    .then(() => {
      hardenSession(session.defaultSession, contentSecurityPolicy(devServerUrl));
      core = startSession();
      tray = createTray({ onShow: showWindow, onQuit: quit });
      // The worst current state and the waiting notices, redrawn only when they change.
      stopTrayWatch = watchTrayState(core, (state) => {
        if (tray) showTrayState(tray, state);
      });
      showWindow();
    })
    .catch((err: unknown) => {
      log.error('could not start', err);
      // A data folder Loopdeck cannot write: its message names the folder and what to do.
      if (err instanceof DataFolderError) dialog.showErrorBox('Loopdeck cannot start', err.message);
      app.exit(1);
    });
}

main();
