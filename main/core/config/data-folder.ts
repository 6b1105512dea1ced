import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * A data folder Loopdeck cannot use (read-only, not writable, not creatable): one sentence naming
 * the folder and what to do, which the shells print as it is, without a stack.
 */
export class DataFolderError extends Error {
  constructor(
    readonly folder: string,
    message: string,
  ) {
    super(message);
    this.name = 'DataFolderError';
  }
}

/**
 * Make a folder and its parents. Node's recursive mkdir answers ENOENT when a parent is read-only
 * or not writable; then the first missing folder is made alone, which fails with the real reason
 * (EROFS, EACCES).
 */
export function makeFolder(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    let missing = dir;
    while (dirname(missing) !== missing && !existsSync(dirname(missing))) missing = dirname(missing);
    mkdirSync(missing);
    mkdirSync(dir, { recursive: true });
  }
}

const reasonOf = (err: unknown): string => {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'EROFS') return 'is on a read-only file system';
  if (e.code === 'EACCES' || e.code === 'EPERM') return 'is not writable by this user';
  return `cannot be used (${e.code ?? e.message})`;
};

/**
 * Check that the data folder exists (making it if need be) and can be written, before anything
 * is logged or stored there; else a DataFolderError naming it and saying to choose another.
 */
export function prepareDataFolder(dir: string): void {
  try {
    makeFolder(dir);
    accessSync(dir, constants.W_OK);
  } catch (err) {
    throw new DataFolderError(dir, `The data folder ${dir} ${reasonOf(err)}: Loopdeck keeps its database and log there. Choose a writable folder with --data DIR (or make this one writable).`);
  }
}
