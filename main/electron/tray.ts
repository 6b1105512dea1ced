// The tray icon and its menu (Show, Quit): where Loopdeck lives while its window is hidden.
import { Menu, nativeImage, Tray, type NativeImage } from 'electron';
import { ICON_COLOR, iconPng, type Rgb } from './tray-icon';

/** The tray image at 16 px with a 32 px representation for HiDPI. On macOS a template image. */
export function trayImage(platform: NodeJS.Platform = process.platform): NativeImage {
  const template = platform === 'darwin';
  // macOS template images are black + alpha; the system tints them for light and dark menu bars.
  const color: Rgb = template ? [0, 0, 0] : ICON_COLOR;
  const image = nativeImage.createFromBuffer(iconPng(16, color), { scaleFactor: 1 });
  image.addRepresentation({ scaleFactor: 2, buffer: iconPng(32, color) });
  if (template) image.setTemplateImage(true);
  return image;
}

/** The window icon (Linux and Windows title bars, task switchers), in colour at 64 px. */
export function windowIconImage(): NativeImage {
  return nativeImage.createFromBuffer(iconPng(64), { scaleFactor: 1 });
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
