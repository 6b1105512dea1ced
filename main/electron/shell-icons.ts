// Where the shell's icons are: committed PNGs under build/shell-icons/, shipped by electron-builder
// as the extra resource shell-icons/ (electron-builder.yml). Pure, so it is tested without Electron.
import path from 'node:path';
import type { NativeBindingContext } from './launch-options';

/** The icon files, by name: `@2x` (HiDPI) and macOS `Template` variants sit beside each by convention. */
export const SHELL_ICON_FILES = {
  tray: 'tray.png',
  trayAttention: 'tray-attention.png',
  trayFailing: 'tray-failing.png',
  trayTemplate: 'trayTemplate.png',
  window: 'window.png',
} as const;

/** The tray's levels (main/core/notices/tray/tray-state.ts), named here so this file stays free of the core. */
export type TrayIconLevel = 'ok' | 'attention' | 'failing';

const TRAY_BY_LEVEL: Readonly<Record<TrayIconLevel, string>> = {
  ok: SHELL_ICON_FILES.tray,
  attention: SHELL_ICON_FILES.trayAttention,
  failing: SHELL_ICON_FILES.trayFailing,
};

/**
 * The folder holding the icons: `resources/shell-icons/` when packaged, `build/shell-icons/` in the
 * project otherwise (`electron .`, `electron-vite dev`).
 */
export function shellIconsDir(ctx: NativeBindingContext): string {
  return ctx.isPackaged ? path.join(ctx.resourcesPath, 'shell-icons') : path.join(ctx.appPath, 'build', 'shell-icons');
}

/**
 * The tray icon's file at 1x for a level; nativeImage.createFromPath adds its `@2x` sibling. On
 * macOS the black-and-alpha Template image whatever the level, which the system tints for light
 * and dark menu bars (a coloured menu-bar icon is out of place there; the count goes in the title
 * beside it); elsewhere blue when ok, amber for attention, red when failing.
 */
export function trayIconFile(dir: string, platform: NodeJS.Platform, level: TrayIconLevel = 'ok'): string {
  return path.join(dir, platform === 'darwin' ? SHELL_ICON_FILES.trayTemplate : TRAY_BY_LEVEL[level]);
}

/** The window icon (Linux and Windows title bars, task switchers), in colour at 64 px. */
export function windowIconFile(dir: string): string {
  return path.join(dir, SHELL_ICON_FILES.window);
}
