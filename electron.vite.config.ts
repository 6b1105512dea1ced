// electron-vite 6 build of the desktop app. Our sources are main/, preload/ and renderer/ at the top
// level (not electron-vite's default src/), so every entry and output is given explicitly.
//
//   out/main/index.js       the Electron shell (ESM, since package.json has "type": "module")
//   out/preload/index.cjs   the preload: CommonJS, one file, because sandboxed preloads cannot
//                           load ES modules or require anything but electron and a few builtins
//   out/renderer/           the React console (same settings as renderer/vite.config.ts, which
//                           builds it for serve mode)
import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';

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
  renderer: {
    root: resolve(root, 'renderer'),
    base: './',
    plugins: [react()],
    build: {
      outDir: resolve(root, 'out/renderer'),
      emptyOutDir: true,
      rolldownOptions: {
        input: { index: resolve(root, 'renderer/index.html') },
      },
    },
  },
});
