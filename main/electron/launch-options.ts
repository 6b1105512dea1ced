// Pure helpers deciding how the Electron shell starts the app core, tested without Electron.
import path from 'node:path';
import { parseArgs } from 'node:util';

/**
 * The value of `--config FILE` (or `--config=FILE`) in argv, or undefined. The last one wins, as
 * usual for repeated flags; a `--config` with nothing (or another option) after it is ignored.
 * Not strict: Electron's argv also carries the executable, the app path and Chromium switches
 * (`--no-sandbox`, `--inspect=…`), which are not ours to refuse.
 */
export function configPathFromArgv(argv: readonly string[]): string | undefined {
  const { tokens } = parseArgs({ args: [...argv], options: { config: { type: 'string', multiple: true } }, strict: false, allowPositionals: true, tokens: true });
  let found: string | undefined;
  for (const t of tokens) {
    if (t.kind !== 'option' || t.name !== 'config' || t.value === undefined || t.value === '') continue;
    // `--config --other`: parseArgs takes the next argument as the value; that is a missing FILE.
    if (!t.inlineValue && t.value.startsWith('-')) continue;
    found = t.value;
  }
  return found;
}

/** What `nativeBindingPath` needs to know about the running app. */
export interface NativeBindingContext {
  readonly isPackaged: boolean;
  /** `process.resourcesPath`: where electron-builder's extraResources land. */
  readonly resourcesPath: string;
  /** `app.getAppPath()`: the project directory when unpackaged. */
  readonly appPath: string;
}

/**
 * Where the Electron-ABI build of better-sqlite3 should be. Packaged, electron-builder copies it
 * to `resources/native/`; unpackaged, `scripts/build-electron-native.mjs` writes it to
 * `native/electron/`. The build in node_modules stays the Node-ABI one for tests and serve mode.
 */
export function nativeBindingPath(ctx: NativeBindingContext): string {
  return ctx.isPackaged
    ? path.join(ctx.resourcesPath, 'native', 'better_sqlite3.node')
    : path.join(ctx.appPath, 'native', 'electron', 'better_sqlite3.node');
}
