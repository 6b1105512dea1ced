import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Loopdeck's data folder, the same one Electron's `app.getPath('userData')` gives, so the CLI,
 * serve mode and the desktop app share one database.
 */
export function defaultDataDir(): string {
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Loopdeck');
  if (process.platform === 'win32') return join(process.env.APPDATA || join(homedir(), 'AppData', 'Roaming'), 'Loopdeck');
  return join(process.env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'Loopdeck');
}

/** The database file inside a data folder. */
export function databasePath(dataDir: string): string {
  return join(dataDir, 'loopdeck.db');
}
