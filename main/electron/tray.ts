// The tray icon and its menu (Show, Quit): where Loopdeck lives while its window is hidden.
import { app, Menu, nativeImage, Tray, type NativeImage } from 'electron';
import { shellIconsDir, trayIconFile, windowIconFile } from './shell-icons';
import { log } from '../core/logging/log';

function iconsDir(): string {
  return shellIconsDir({ isPackaged: app.isPackaged, resourcesPath: process.resourcesPath, appPath: app.getAppPath() });
}

/** An icon from a committed PNG (with its `@2x` sibling); a missing file is said, not silently blank. */
function loadIcon(file: string): NativeImage {
  const image = nativeImage.createFromPath(file);
  if (image.isEmpty()) log.error(`the icon ${file} is missing or not a PNG; the tray or window shows no icon (reinstall Loopdeck)`);
  return image;
}

/** The tray image at 16 px with a 32 px representation for HiDPI. On macOS a template image. */
export function trayImage(platform: NodeJS.Platform = process.platform): NativeImage {
  const image = loadIcon(trayIconFile(iconsDir(), platform));
  if (platform === 'darwin') image.setTemplateImage(true);
  return image;
}

/** The window icon (Linux and Windows title bars, task switchers), in colour at 64 px. */
export function windowIconImage(): NativeImage {
  return loadIcon(windowIconFile(iconsDir()));
}

/** Options of `createTray`. */
export interface TrayOptions {
  readonly onShow: () => void;
  readonly onQuit: () => void;
}

/** Create the tray icon with its Show / Quit menu; a click on the icon also shows the window. */
export function createTray(opts: TrayOptions): Tray {
  const tray = new Tray(trayImage());
  tray.setToolTip('Loopdeck');
  tray.setContextMenu(
    Menu.buildFromTemplate([
      { label: 'Show Loopdeck', click: () => opts.onShow() },
      { type: 'separator' },
      { label: 'Quit Loopdeck', click: () => opts.onQuit() },
    ]),
  );
  tray.on('click', () => opts.onShow());
  return tray;
}
