// ESLint flat config. Besides the usual checks it enforces DESIGN.md's import rules: a violating
// import fails `npm run lint`, and so `npm test`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const nodeBuiltins = ['node:*', 'fs', 'path', 'os', 'child_process', 'crypto', 'net', 'http', 'https', 'url', 'stream', 'events', 'util', 'worker_threads'];
const msg = (rule) => `DESIGN.md import rule: ${rule}`;

export default tseslint.config(
  { ignores: ['node_modules/**', 'out/**', 'dist/**', 'release/**', 'test-results/**', 'playwright-report/**', 'e2e/artifacts/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['electron', 'react', 'react-dom', 'zustand', 'ssh2', 'better-sqlite3', 'ws', ...nodeBuiltins], message: msg('shared/ imports only shared/ and zod.') },
          { group: ['../main/**', '../renderer/**', '../preload/**', '../e2e/**'], message: msg('shared/ imports only shared/ and zod.') },
        ],
      }],
    },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    ignores: ['renderer/vite.config.ts'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['electron', 'ssh2', 'better-sqlite3', 'ws', ...nodeBuiltins], message: msg('renderer/ imports renderer/ and shared/ only.') },
          { group: ['**/main/**', '**/preload/**', '**/e2e/**'], message: msg('renderer/ imports renderer/ and shared/ only.') },
        ],
      }],
    },
  },
  {
    files: ['preload/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['ssh2', 'better-sqlite3', 'ws', 'react', ...nodeBuiltins], message: msg('preload/ imports shared/ and electron only.') },
          { group: ['**/main/**', '**/renderer/**', '**/e2e/**'], message: msg('preload/ imports shared/ and electron only.') },
        ],
      }],
    },
  },
  {
    files: ['main/**/*.ts'],
    ignores: ['main/electron/**'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['electron'], message: msg('electron is imported only under main/electron/.') },
          { group: ['**/renderer/**', '**/preload/**'], message: msg('main/ does not import the renderer or the preload.') },
        ],
      }],
    },
  },
  {
    files: ['main/**/*.ts'],
    ignores: ['main/core/**'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['ssh2', 'better-sqlite3'], message: msg('ssh2 and better-sqlite3 live only under main/core/.') },
          { group: ['**/renderer/**', '**/preload/**'], message: msg('main/ does not import the renderer or the preload.') },
        ],
      }],
    },
  },
  {
    files: ['e2e/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['**/main/**', '**/renderer/**', '**/preload/**'], message: msg('e2e/ imports shared/ only.') },
          { group: ['electron', 'ssh2', 'better-sqlite3'], message: msg('e2e/ imports shared/ only.') },
        ],
      }],
    },
  },
);
