// electron-vite 6 build of the desktop app. Our sources are main/, preload/ and renderer/ at the top
// level (not electron-vite's default src/), so every entry and output is given explicitly.
//
//   out/main/index.js       the Electron shell (ESM, since package.json has "type": "module")
//   out/preload/index.cjs   the preload: CommonJS, one file, because sandboxed preloads cannot
//                           load ES modules or require anything but electron and a few builtins
//   out/renderer/           the React console: the very config of renderer/vite.config.ts (which
//                           `npm run build:renderer` uses for serve mode), so both builds are alike.
//                           Its browser target is Vite's default rather than Electron's Chromium
//                           (serve mode opens in any browser), hence electron-vite's note that the
//                           target "is not chrome?": expected.
import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import { rendererConfig } from './renderer/vite.config';

const root = import.meta.dirname;

/** The electron-vite configuration: main, preload and renderer builds. */
export default defineConfig({
  main: {
    build: {
      outDir: resolve(root, 'out/main'),
      // package.json dependencies stay external (electron-builder ships them in node_modules);
      // the native and SSH modules are named too, in case they are only transitive.
      externalizeDeps: { include: ['better-sqlite3', 'ssh2', 'cpu-features'] },
      rolldownOptions: {
        input: { index: resolve(root, 'main/electron/main.ts') },
      },
    },
  },
  preload: {
    build: {
      outDir: resolve(root, 'out/preload'),
      // Bundle everything: a sandboxed preload cannot require from node_modules.
      externalizeDeps: false,
      rolldownOptions: {
        input: { index: resolve(root, 'preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: rendererConfig,
});
