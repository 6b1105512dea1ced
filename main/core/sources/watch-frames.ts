import type { FileStat } from './file-source';
import { parseStatLine } from './remote-shell';

/** One line the host's watcher printed (see watcherScript). */
export type WatchLine =
  /** Anything may have changed: read the folders again. */
  | { readonly kind: 'changed' }
  /** The heartbeat: the link and the watcher are alive. */
  | { readonly kind: 'beat' }
  /** A file grew: `bytes` are its content from `from` to `stat.size` (sent as base64, or hex after `h:`). */
  | { readonly kind: 'grew'; readonly path: string; readonly stat: FileStat; readonly from: number; readonly bytes: Buffer }
  /** A file changed in place beyond what a frame carries: read it by requests. */
  | { readonly kind: 'touched'; readonly path: string; readonly stat: FileStat }
  /** An entry of the watcher's first listing (the Perl watcher's first report). */
  | { readonly kind: 'entry'; readonly path: string; readonly stat: FileStat }
  /** The end of the first listing. */
  | { readonly kind: 'listed' };

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const HEX = /^(?:[0-9a-f]{2})*$/;

/**
 * Parse one watcher line. Anything it cannot read — a line cut short by the stream's bound, a
 * frame whose bytes do not match its sizes — is `changed`: the poll reads by requests instead,
 * so a bad frame costs a round trip, never a line.
 */
export function parseWatchLine(line: string): WatchLine {
  if (line === '.') return { kind: 'beat' };
  if (line === 'listed') return { kind: 'listed' };
  if (line.startsWith('@')) {
    const parsed = parseStatLine(line.slice(1));
    return parsed ? { kind: 'entry', path: parsed.name, stat: parsed.stat } : { kind: 'changed' };
  }
  if (line.startsWith('~')) {
    const parsed = parseStatLine(line.slice(1));
    return parsed ? { kind: 'touched', path: parsed.name, stat: parsed.stat } : { kind: 'changed' };
  }
  if (line.startsWith('+')) {
    const sp1 = line.indexOf(' ');
    const sp2 = sp1 < 0 ? -1 : line.indexOf(' ', sp1 + 1);
    const from = Number(line.slice(1, sp1));
    const data = sp2 < 0 ? '' : line.slice(sp1 + 1, sp2);
    const parsed = sp2 < 0 ? null : parseStatLine(line.slice(sp2 + 1));
    const hex = data.startsWith('h:');
    if (!parsed || !Number.isSafeInteger(from) || from < 0 || !(hex ? HEX.test(data.slice(2)) : BASE64.test(data))) return { kind: 'changed' };
    const bytes = hex ? Buffer.from(data.slice(2), 'hex') : Buffer.from(data, 'base64');
    // The file was truncated between the listing and the read: the frame says nothing sure.
    if (from + bytes.length !== parsed.stat.size) return { kind: 'touched', path: parsed.name, stat: parsed.stat };
    return { kind: 'grew', path: parsed.name, stat: parsed.stat, from, bytes };
  }
  return { kind: 'changed' };
}
