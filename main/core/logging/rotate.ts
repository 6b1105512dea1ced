import { renameSync, rmSync } from 'node:fs';
import { parse, join } from 'node:path';

/** The name of the `n`th archive of a log file: loopdeck.log → loopdeck.1.log (the newest), loopdeck.2.log, … */
export function archivePath(file: string, n: number): string {
  const { dir, name, ext } = parse(file);
  return join(dir, `${name}.${n}${ext}`);
}

/**
 * Shift a full log file into its archives, keeping `files` files in all (the live one included):
 * the oldest archive is deleted, each other moves up one, and the live file becomes `.1`.
 * Synchronous, because the logger writes the next line right after (see LogFile).
 */
export function rotateLogFiles(file: string, files: number): void {
  const archives = Math.max(files - 1, 0);
  if (archives === 0) {
    rmSync(file, { force: true });
    return;
  }
  rmSync(archivePath(file, archives), { force: true });
  for (let n = archives - 1; n >= 1; n--) {
    try {
      renameSync(archivePath(file, n), archivePath(file, n + 1));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  renameSync(file, archivePath(file, 1));
}
