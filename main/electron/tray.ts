// The tray icon and its menu (Show, Quit): where Loopdeck lives while its window is hidden.
import { app, Menu, nativeImage, Tray, type NativeImage } from 'electron';
import { shellIconsDir, trayIconFile, windowIconFile, type TrayIconLevel } from './shell-icons';
import { log } from '../core/logging/log';
import type { TrayState } from '../core/notices/tray/tray-state';

function iconsDir(): string {
  return shellIconsDir({ isPackaged: app.isPackaged, resourcesPath: process.resourcesPath, appPath: app.getAppPath() });
}

/** An icon from a committed PNG (with its `@2x` sibling); a missing file is said, not silently blank. */
function loadIcon(file: string): NativeImage {
  const image = nativeImage.createFromPath(file);
  if (image.isEmpty()) log.error(`the icon ${file} is missing or not a PNG; the tray or window shows no icon (reinstall Loopdeck)`);
  return image;
}

const trayImages = new Map<string, NativeImage>();

/** The tray image for a level at 16 px with a 32 px representation for HiDPI (loaded once). On macOS a template image. */
export function trayImage(level: TrayIconLevel = 'ok', platform: NodeJS.Platform = process.platform): NativeImage {
  const key = `${platform}:${level}`;
  const cached = trayImages.get(key);
  if (cached) return cached;
  const image = loadIcon(trayIconFile(iconsDir(), platform, level));
  if (platform === 'darwin') image.setTemplateImage(true);
  trayImages.set(key, image);
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

/**
 * Show a tray state (called only when it changed, see watchTrayState): the level's icon, a tooltip
 * naming the level, the count and why, the count as the menu-bar title on macOS (where the icon is
 * a monochrome template and cannot turn red), and as the app badge where the system has one.
 */
export function showTrayState(tray: Tray, state: TrayState, platform: NodeJS.Platform = process.platform): void {
  if (tray.isDestroyed()) return;
  tray.setImage(trayImage(state.level, platform));
  tray.setToolTip(state.tooltip);
  if (platform === 'darwin') tray.setTitle(state.count > 0 ? String(state.count) : '');
  // macOS dock, Unity-style Linux launchers; elsewhere a no-op that returns false.
  app.setBadgeCount(state.count);
}
