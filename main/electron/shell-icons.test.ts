import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SHELL_ICON_FILES, shellIconsDir, trayIconFile, windowIconFile } from './shell-icons';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = shellIconsDir({ isPackaged: false, resourcesPath: '/nowhere', appPath: root });

/** Width, height and colour type from a PNG's IHDR (the first chunk, at a fixed offset). */
function pngHeader(file: string): { width: number; height: number; colourType: number } {
  const png = readFileSync(file);
  expect(png.subarray(0, 8), `${file} is not a PNG`).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect(png.subarray(12, 16).toString('ascii')).toBe('IHDR');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20), colourType: png[25] ?? -1 };
}

describe('shell icons', () => {
  it('are looked up in resources/shell-icons when packaged and build/shell-icons in the project', () => {
    const ctx = { resourcesPath: '/opt/Loopdeck/resources', appPath: '/work/loopdeck' };
    expect(shellIconsDir({ ...ctx, isPackaged: true })).toBe(path.join('/opt/Loopdeck/resources', 'shell-icons'));
    expect(shellIconsDir({ ...ctx, isPackaged: false })).toBe(path.join('/work/loopdeck', 'build', 'shell-icons'));
  });

  it('uses the Template image on macOS and the coloured one elsewhere', () => {
    expect(trayIconFile('/i', 'darwin')).toBe(path.join('/i', 'trayTemplate.png'));
    expect(trayIconFile('/i', 'linux')).toBe(path.join('/i', 'tray.png'));
    expect(trayIconFile('/i', 'win32')).toBe(path.join('/i', 'tray.png'));
    expect(windowIconFile('/i')).toBe(path.join('/i', 'window.png'));
  });

  it('has one coloured tray icon per level, and the Template image on macOS whatever the level', () => {
    expect(trayIconFile('/i', 'linux', 'ok')).toBe(path.join('/i', 'tray.png'));
    expect(trayIconFile('/i', 'linux', 'attention')).toBe(path.join('/i', 'tray-attention.png'));
    expect(trayIconFile('/i', 'win32', 'failing')).toBe(path.join('/i', 'tray-failing.png'));
    for (const level of ['ok', 'attention', 'failing'] as const) expect(trayIconFile('/i', 'darwin', level)).toBe(path.join('/i', 'trayTemplate.png'));
  });

  it('the level icons are three different files, not copies of one', () => {
    const files = [SHELL_ICON_FILES.tray, SHELL_ICON_FILES.trayAttention, SHELL_ICON_FILES.trayFailing];
    const bytes = files.map((f) => readFileSync(path.join(dir, f)).toString('base64'));
    expect(new Set(bytes).size, 'two levels share an identical icon').toBe(files.length);
  });

  it.each([
    [SHELL_ICON_FILES.tray, 16],
    ['tray@2x.png', 32],
    [SHELL_ICON_FILES.trayAttention, 16],
    ['tray-attention@2x.png', 32],
    [SHELL_ICON_FILES.trayFailing, 16],
    ['tray-failing@2x.png', 32],
    [SHELL_ICON_FILES.trayTemplate, 16],
    ['trayTemplate@2x.png', 32],
    [SHELL_ICON_FILES.window, 64],
  ])('%s is committed as a %ipx RGBA PNG', (name, size) => {
    expect(pngHeader(path.join(dir, name))).toEqual({ width: size, height: size, colourType: 6 });
  });

  it('ship with the packaged app (electron-builder extraResources)', () => {
    // Read as text: main/electron may not import the YAML parser (import rules).
    const config = readFileSync(path.join(root, 'electron-builder.yml'), 'utf8');
    const extra = config.slice(config.indexOf('\nextraResources:'));
    expect(extra.split(/\n(?=\S)/)[1]).toMatch(/- from: build\/shell-icons\n\s+to: shell-icons\n/);
  });
});
