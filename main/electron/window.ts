// The console's single window: created hidden, shown when ready, hidden (not closed) on close so
// the app keeps running in the tray.
import { BrowserWindow, type NativeImage } from 'electron';
import { log } from '../core/logging/log';

/** Options of `createMainWindow`. */
export interface MainWindowOptions {
  /** Absolute path of the built preload (CommonJS, as sandboxed preloads must be). */
  readonly preloadPath: string;
  /** What to load: the dev server URL, or the built index.html file. */
  readonly load: { readonly kind: 'url'; readonly url: string } | { readonly kind: 'file'; readonly file: string };
  readonly icon?: NativeImage;
  /** Whether the app is quitting; until then closing the window only hides it. */
  readonly isQuitting: () => boolean;
}

/** Create and load the main window with the secure webPreferences. */
export function createMainWindow(opts: MainWindowOptions): BrowserWindow {
  const win = new BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 900,
    minHeight: 600,
    show: false,
    title: 'Loopdeck',
    backgroundColor: '#0f1115',
    autoHideMenuBar: true,
    ...(opts.icon ? { icon: opts.icon } : {}),
    webPreferences: {
      preload: opts.preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
    },
  });

  win.once('ready-to-show', () => win.show());
  // What the page cannot report itself (log.error) goes to the log from here.
  win.webContents.on('render-process-gone', (_event, details) =>
    log.error(`the console window's renderer is gone: ${details.reason} (exit code ${details.exitCode})`),
  );
  win.webContents.on('preload-error', (_event, preloadPath, err) => log.error(`the preload ${preloadPath} failed`, err));
  win.on('close', (event) => {
    if (opts.isQuitting()) return;
    event.preventDefault();
    win.hide();
  });

  const loading = opts.load.kind === 'url' ? win.loadURL(opts.load.url) : win.loadFile(opts.load.file);
  loading.catch((err: unknown) => log.error('could not load the console window', err));
  return win;
}

/** Bring a window to the front, restoring it if minimised or hidden. */
export function revealWindow(win: BrowserWindow): void {
  if (win.isDestroyed()) return;
  if (win.isMinimized()) win.restore();
  if (!win.isVisible()) win.show();
  win.focus();
}
