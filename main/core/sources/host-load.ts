import { availableParallelism, freemem, loadavg } from 'node:os';

// A host's load, read in a request Loopdeck makes anyway (issue "Night against night", item 3):
// a phase that failed while the runner was starved of CPU is the runner's doing, not the agent's.

/** One reading of a host's load: the 1-minute load average, its cores, and the memory free for new work. */
export interface LoadSample {
  readonly load1: number;
  readonly cores: number;
  /** MemAvailable on Linux (free, inactive and speculative pages on macOS); null when the host does not say. */
  readonly freeBytes: number | null;
}

/** The lines that open and close the load's block on the request's stderr. */
const OPEN = 'LDLOAD';
const CLOSE = 'LDLOAD.';

/**
 * A shell snippet run ahead of a request's own script, its output sent to stderr (the request's
 * stdout is the script's bytes, untouched) and its errors dropped. Stock tools on Linux and macOS:
 * builtins reading /proc on Linux (one fork, `nproc`), `sysctl` and `vm_stat` on macOS.
 */
export const LOAD_SCRIPT = [
  '{',
  `printf '${OPEN}\\n';`,
  'if [ -r /proc/loadavg ]; then',
  'read ld_l ld_x < /proc/loadavg; printf \'load %s\\n\' "$ld_l";',
  'while read ld_k ld_v ld_x; do if [ "$ld_k" = MemAvailable: ]; then printf \'avail_kb %s\\n\' "$ld_v"; break; fi; done < /proc/meminfo;',
  'else',
  'printf \'load %s\\n\' "$(LC_ALL=C sysctl -n vm.loadavg)"; vm_stat;',
  'fi;',
  'printf \'cores %s\\n\' "$(nproc || getconf _NPROCESSORS_ONLN || sysctl -n hw.ncpu)";',
  `printf '${CLOSE}\\n';`,
  '} >&2 2>/dev/null',
].join(' ');

/** Read the block LOAD_SCRIPT printed (its lines between the markers); null when a figure it needs is missing. */
export function parseLoad(lines: readonly string[]): LoadSample | null {
  let load1 = NaN;
  let cores = NaN;
  let availKb: number | null = null;
  let pageSize: number | null = null;
  const pages = new Map<string, number>();
  for (const line of lines) {
    if (line.startsWith('load ')) load1 = Number(/\d+(?:\.\d+)?/.exec(line.slice(5))?.[0] ?? NaN);
    else if (line.startsWith('cores ')) cores = Number(line.slice(6).trim());
    else if (line.startsWith('avail_kb ')) {
      const kb = Number(line.slice(9).trim());
      availKb = Number.isFinite(kb) && kb >= 0 ? kb : null;
    } else {
      // vm_stat: `Mach Virtual Memory Statistics: (page size of 16384 bytes)`, then `Pages free:   12345.`
      const size = /page size of (\d+) bytes/.exec(line);
      if (size) pageSize = Number(size[1]);
      const count = /^Pages (free|inactive|speculative):\s+(\d+)\.?$/.exec(line.trim());
      if (count) pages.set(count[1] ?? '', Number(count[2]));
    }
  }
  if (!Number.isFinite(load1) || load1 < 0 || !Number.isInteger(cores) || cores < 1) return null;
  let freeBytes: number | null = availKb === null ? null : availKb * 1024;
  if (freeBytes === null && pageSize !== null && pages.has('free')) {
    freeBytes = ((pages.get('free') ?? 0) + (pages.get('inactive') ?? 0) + (pages.get('speculative') ?? 0)) * pageSize;
  }
  return { load1, cores, freeBytes };
}

/**
 * Take the load's block off the head of a request's stderr: the sample (null when the block is
 * not there or says too little) and the stderr the script itself wrote, for its caller.
 */
export function takeLoad(stderr: string): { sample: LoadSample | null; rest: string } {
  if (!stderr.startsWith(`${OPEN}\n`)) return { sample: null, rest: stderr };
  const end = stderr.indexOf(`\n${CLOSE}\n`);
  if (end < 0) return { sample: null, rest: stderr };
  return { sample: parseLoad(stderr.slice(OPEN.length + 1, end).split('\n')), rest: stderr.slice(end + CLOSE.length + 2) };
}

/** This machine's load, for a `local: true` host: no request at all. */
export function localLoad(): LoadSample {
  // os.freemem() is MemAvailable on Linux (libuv), the pages free for new work elsewhere.
  return { load1: loadavg()[0] ?? 0, cores: availableParallelism(), freeBytes: freemem() };
}
