// Pure helpers deciding how the Electron shell starts the app core, tested without Electron.
import path from 'node:path';

/**
 * The value of `--config FILE` (or `--config=FILE`) in argv, or undefined. The last one wins, as
 * usual for repeated flags; a `--config` with nothing after it is ignored.
 */
export function configPathFromArgv(argv: readonly string[]): string | undefined {
  let found: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === undefined) continue;
    if (arg === '--') break;
    if (arg === '--config') {
      const next = argv[i + 1];
      if (next !== undefined && next !== '' && !next.startsWith('--')) {
        found = next;
        i++;
      }
    } else if (arg.startsWith('--config=') && arg.length > '--config='.length) {
      found = arg.slice('--config='.length);
    }
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
