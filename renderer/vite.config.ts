// Builds the renderer. Run from the repo root: `vite build --config renderer/vite.config.ts`.
// This file runs in Node at build time, not in the renderer, so the renderer's import rule does
// not apply to it.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/** The CSP the built page carries (Electron loads it from a file, so there are no headers). */
const CSP = "default-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'";

// Only at build: the dev server injects an inline script (React refresh) a CSP would block.
function contentSecurityPolicy(): Plugin {
  return {
    name: 'loopdeck-csp',
    apply: 'build',
    transformIndexHtml: () => [{ tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: CSP }, injectTo: 'head-prepend' }],
  };
}

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  plugins: [react(), contentSecurityPolicy()],
  build: {
    outDir: fileURLToPath(new URL('../out/renderer', import.meta.url)),
    emptyOutDir: true,
    // One bundle for a console loaded from disk or loopback (recharts makes it ~850 kB): no
    // network to save, and the 1.3 s cold start to a painted review is measured by the bench.
    chunkSizeWarningLimit: 1200,
  },
});
