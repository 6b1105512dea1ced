// Writes the app icons electron-builder packages (build/icons/NxN.png, build/icon.png) from the
// same drawing the tray uses at run time (main/electron/tray-icon.ts), so they never disagree.
// Run: npx tsx scripts/make-icons.ts   (output is committed; re-run only when the drawing changes)
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { iconPng } from '../main/electron/tray-icon';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const iconsDir = join(root, 'build', 'icons');
mkdirSync(iconsDir, { recursive: true });
for (const size of [16, 32, 48, 64, 128, 256, 512]) {
  writeFileSync(join(iconsDir, `${size}x${size}.png`), iconPng(size));
}
writeFileSync(join(root, 'build', 'icon.png'), iconPng(512));
console.log(`wrote icons to ${iconsDir} and build/icon.png`);
