// The one renderer build. `npm run build:renderer` (`vite build --config renderer/vite.config.ts`,
// for serve mode) uses it directly and electron.vite.config.ts reuses `rendererConfig` as its
// renderer section, so both write the same out/renderer. This file runs in Node at build time,
// not in the renderer, so the renderer's import rule does not apply to it.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin, type UserConfig } from 'vite';
import { CONTENT_SECURITY_POLICY } from '../shared/csp';

/**
 * Put the shared CSP in the built index.html as a <meta> tag: Electron loads the page from a
 * file:// URL, where no response header carries one. Only at build: the dev server injects an
 * inline script (React refresh) this policy blocks; the Electron shell relaxes its header for it.
 */
export function contentSecurityPolicyMeta(): Plugin {
  return {
    name: 'loopdeck-csp',
    apply: 'build',
    transformIndexHtml: () => [
      { tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: CONTENT_SECURITY_POLICY }, injectTo: 'head-prepend' },
    ],
  };
}

/**
 * Put the early socket's script (src/early.ts, an entry of its own) in the built index.html before
 * the main bundle, `async`: it runs as soon as it has loaded, where a module script in document
 * order would wait for the main bundle. It opens serve mode's socket and asks for the first
 * paint's data while the browser fetches and evaluates the rest (client/early-socket.ts).
 */
export function earlySocketScript(): Plugin {
  return {
    name: 'loopdeck-early-socket',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        const chunk = Object.values(ctx.bundle ?? {}).find((c) => c.type === 'chunk' && c.isEntry && c.name === 'early');
        const at = html.indexOf('<script type="module"');
        if (!chunk || at < 0) throw new Error('renderer build: the early socket entry (src/early.ts) or the main script is missing from the build');
        return `${html.slice(0, at)}<script type="module" async crossorigin src="./${chunk.fileName}"></script>\n    ${html.slice(at)}`;
      },
    },
  };
}

const at = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

/**
 * The renderer build settings. Everything electron-vite would otherwise default differently
 * (target, minify, module preload polyfill, env files) is pinned here, so its build and Vite's
 * are the same bytes. The target is Vite's own default, not Electron's Chromium: serve mode
 * opens in any current browser.
 */
export const rendererConfig = {
  root: at('.'),
  base: './',
  envDir: at('.'),
  envPrefix: 'VITE_',
  plugins: [react(), contentSecurityPolicyMeta(), earlySocketScript()],
  build: {
    outDir: at('../out/renderer'),
    emptyOutDir: true,
    target: 'baseline-widely-available',
    minify: true,
    modulePreload: { polyfill: false },
    // Split by view (components/LazyViews.tsx): no network to save from disk or loopback, but the
    // cold start to a painted Review evaluates only the shell and the Review (~400 kB of the
    // ~940 kB; recharts and the virtual table are in the lazy views' chunks), and the rest is
    // warmed in idle time after that paint. e2e/code-split.spec.ts holds the entry to a budget.
    // `early` is the early socket's script, put in index.html by earlySocketScript.
    rolldownOptions: { input: { index: at('index.html'), early: at('src/early.ts') } },
  },
} satisfies UserConfig;

export default defineConfig(rendererConfig);
