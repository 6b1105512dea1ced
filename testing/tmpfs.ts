import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A small tmpfs mounted for a test: a real filesystem that fills up, or refuses every write. */
export interface Tmpfs {
  readonly dir: string;
  /** Bytes an unprivileged writer may still use there. */
  free(): number;
  /** Take all the room but `leave` bytes with a file of its own; returns the function that frees it again. */
  fill(leave?: number): () => void;
  /** Unmount (call it in afterAll or finally). */
  unmount(): void;
}

/**
 * Mount a tmpfs of `bytes` at `dir` (a new temporary folder by default), read-only if asked.
 * Needs root (tests here run as root, on CI and in the dev container); says so if it cannot.
 */
export function mountTmpfs(bytes: number, options: { readOnly?: boolean; dir?: string } = {}): Tmpfs {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'ld-tmpfs-'));
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}${options.readOnly ? ',ro' : ''}`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (err) {
    throw new Error(`cannot mount a tmpfs at ${dir} (the full-disk and read-only tests need root): ${(err as { stderr?: Buffer }).stderr?.toString().trim() ?? String(err)}`, { cause: err });
  }
  let fillers = 0;
  let mounted = true;
  const free = (): number => {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  };
  return {
    dir,
    free,
    fill: (leave = 0) => {
      const file = join(dir, `filler-${++fillers}`);
      const size = Math.max(0, free() - leave);
      try {
        writeFileSync(file, Buffer.alloc(size));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      }
      return () => rmSync(file, { force: true });
    },
    unmount: () => {
      if (!mounted) return;
      mounted = false;
      execFileSync('umount', [dir], { stdio: 'pipe' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
