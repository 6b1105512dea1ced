// Where the shell's icons are: committed PNGs under build/shell-icons/, shipped by electron-builder
// as the extra resource shell-icons/ (electron-builder.yml). Pure, so it is tested without Electron.
import path from 'node:path';
import type { NativeBindingContext } from './launch-options';

/** The icon files, by name: `@2x` (HiDPI) and macOS `Template` variants sit beside each by convention. */
export const SHELL_ICON_FILES = {
  tray: 'tray.png',
  trayTemplate: 'trayTemplate.png',
  window: 'window.png',
} as const;

/**
 * The folder holding the icons: `resources/shell-icons/` when packaged, `build/shell-icons/` in the
 * project otherwise (`electron .`, `electron-vite dev`).
 */
export function shellIconsDir(ctx: NativeBindingContext): string {
  return ctx.isPackaged ? path.join(ctx.resourcesPath, 'shell-icons') : path.join(ctx.appPath, 'build', 'shell-icons');
}

/**
 * The tray icon's file at 1x; nativeImage.createFromPath adds its `@2x` sibling. On macOS the
 * black-and-alpha Template image, which the system tints for light and dark menu bars; elsewhere
 * the coloured one. Issue 16's per-state icons would be further names here (`tray-failing.png`).
 */
export function trayIconFile(dir: string, platform: NodeJS.Platform): string {
  return path.join(dir, platform === 'darwin' ? SHELL_ICON_FILES.trayTemplate : SHELL_ICON_FILES.tray);
}

/** The window icon (Linux and Windows title bars, task switchers), in colour at 64 px. */
export function windowIconFile(dir: string): string {
  return path.join(dir, SHELL_ICON_FILES.window);
}
