import type { TranscriptSearch } from '../../../shared/transcript-domain';
import type { HostShell } from '../hosts/host-shell';
import { shellQuote } from '../sources/remote-shell';

/** How long a search may run on the host (ms) before grep is stopped and the hits so far answered. */
export const TRANSCRIPT_SEARCH_MS = 10_000;
/** A hit's text is cut at this many bytes (on the host, by `cut -b`). */
export const HIT_BYTES = 4096;
/** The most bytes of grep's output brought back. */
export const SEARCH_OUTPUT_BYTES = 4 * 1024 * 1024;

/** What to search for. */
export interface SearchQuery {
  readonly query: string;
  readonly regex: boolean;
  readonly ignoreCase: boolean;
  readonly maxHits: number;
  /** Overrides TRANSCRIPT_SEARCH_MS (tests). */
  readonly timeoutMs?: number;
}

const MISSING = 3;
const UNREADABLE = 5;

/**
 * The host-side search: stock `grep -n` (-F or -E, -i) in the C locale, stopped after
 * `maxHits + 1` hits (so "more than maxHits" is known), each hit cut at HIT_BYTES, the whole
 * output at SEARCH_OUTPUT_BYTES, and grep killed after the timeout by a sleeper that is itself
 * stopped when grep ends (no `timeout` on macOS, no process groups needed). grep is also killed
 * once the script's input ends: the channel's, which ends when Loopdeck cancels the search (or the
 * link drops), so a cancelled search leaves nothing running even while grep finds nothing to write
 * (a slow regex). The input is read by the shell's own `read` through fd 3 (an asynchronous list
 * reads /dev/null), so killing that reader leaves no `cat` behind. The query and the path are
 * single-quoted words: data, never shell code. grep's status is said on stderr as `loopdeck-rc=N`
 * (143: killed by the timeout or the cancel).
 */
export function searchScript(path: string, q: SearchQuery, timeoutMs: number): string {
  const flags = ['-n', '-a', q.regex ? '-E' : '-F', ...(q.ignoreCase ? ['-i'] : []), '-m', String(q.maxHits + 1)].join(' ');
  const seconds = Math.max(1, Math.ceil(timeoutMs / 1000));
  const f = shellQuote(path);
  return [
    'LC_ALL=C; export LC_ALL',
    `[ -e ${f} ] || exit ${MISSING}`,
    `[ -f ${f} ] && [ -r ${f} ] || exit ${UNREADABLE}`,
    'exec 3<&0',
    `( grep ${flags} -e ${shellQuote(q.query)} -- ${f} 3<&- & g=$!; ` +
      `( trap 'kill $s 2>/dev/null; exit 0' TERM; sleep ${seconds} & s=$!; wait $s; kill $g 2>/dev/null ) </dev/null >/dev/null 2>&1 3<&- & k=$!; ` +
      `( while read -r x <&3; do :; done; kill $g 2>/dev/null ) </dev/null >/dev/null 2>&1 & c=$!; ` +
      `wait $g; r=$?; kill $k $c 2>/dev/null; echo "loopdeck-rc=$r" >&2 ) | cut -b 1-${HIT_BYTES} | head -c ${SEARCH_OUTPUT_BYTES}`,
  ].join('\n');
}

/** A search that could not run: the message names the host, the file and why. */
export class TranscriptSearchError extends Error {
  override readonly name = 'TranscriptSearchError';
}

/** Run a search where the file is, through the host's shell; `signal` cancels it (grep ends on the host, the promise rejects with the signal's reason). */
export async function searchOnHost(shell: HostShell, host: string, path: string, q: SearchQuery, signal?: AbortSignal): Promise<TranscriptSearch> {
  const timeoutMs = q.timeoutMs ?? TRANSCRIPT_SEARCH_MS;
  const out = await shell.exec(searchScript(path, q, timeoutMs), timeoutMs + 15_000, signal);
  if (out.code === MISSING) throw new TranscriptSearchError(`Host ${host}: ${path} does not exist.`);
  if (out.code === UNREADABLE) throw new TranscriptSearchError(`Host ${host}: ${path} is not a readable regular file.`);
  const rc = Number(/loopdeck-rc=(\d+)/.exec(out.stderr)?.[1] ?? NaN);
  if (rc === 2) {
    const why = out.stderr.replace(/loopdeck-rc=\d+\s*/g, '').trim().split('\n')[0] ?? '';
    throw new TranscriptSearchError(`Host ${host}: grep could not search ${path}${q.regex ? ' (is the regex valid for grep -E?)' : ''}: ${why || 'exit 2'}`);
  }
  const timedOut = rc === 143 || rc === 137 || (Number.isNaN(rc) && out.code !== 0);
  const capped = out.stdout.length >= SEARCH_OUTPUT_BYTES;
  const text = out.stdout.toString('utf8');
  const lines = text.split('\n');
  // The last piece is empty after a final newline, or a hit cut by the byte cap.
  lines.pop();
  const hits: { n: number; text: string }[] = [];
  for (const line of lines) {
    const colon = line.indexOf(':');
    const n = Number(line.slice(0, colon));
    if (colon <= 0 || !Number.isInteger(n) || n < 1) continue;
    hits.push({ n, text: line.slice(colon + 1).replace(/\r$/, '') });
  }
  const over = hits.length > q.maxHits;
  const total = hits.length;
  return { hits: hits.slice(0, q.maxHits), total, truncated: over || capped, timedOut };
}
