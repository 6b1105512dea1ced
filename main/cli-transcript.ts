import { TRANSCRIPT_MAX_ROWS, TranscriptQuerySchema, type TranscriptRef, type TranscriptRow } from '../shared/transcript-domain';
import { stripEscapes } from '../shared/transcript-text';
import type { Core } from './core/session/core';
import { localUser } from './rpc/local-caller';
import { messageOf } from '../shared/errors';

/** The flags of `loopdeck log`. */
export interface LogFlags {
  readonly lines?: string;
  readonly from?: string;
  readonly grep?: string;
  readonly follow?: boolean;
  readonly raw?: boolean;
}

/** A usage mistake or a transcript that is not there: printed without a stack, with the exit code. */
export class LogError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** How often `--follow` says again that it still has the transcript open (the interest lasts 5 minutes). */
const FOLLOW_REFRESH_MS = 60_000;

function count(flag: string | undefined, name: string, fallback: number): number {
  if (flag === undefined) return fallback;
  const n = Number(flag);
  if (!Number.isInteger(n) || n < 1) throw new LogError(`--${name}: expected a whole number of at least 1, got ${JSON.stringify(flag)}`, 2);
  return n;
}

/**
 * Refuse a usage mistake of `loopdeck log` before anything is opened: the words, --lines, --from,
 * and a --grep the WebSocket would refuse too (TranscriptQuerySchema: a newline makes grep read two patterns).
 */
export function checkLogUsage(words: readonly string[], flags: LogFlags): void {
  if (words.length < 2 || words.length > 3) throw new LogError('Usage: loopdeck log LOOP [DATE] PHASE [--lines N] [--from LINE] [--grep RE] [--follow] [--raw]', 2);
  count(flags.lines, 'lines', 50);
  count(flags.from, 'from', 1);
  if (flags.grep === undefined) return;
  const query = TranscriptQuerySchema.safeParse(flags.grep);
  if (!query.success) throw new LogError(`--grep: ${query.error.issues.map((i) => i.message).join('; ')}, got ${JSON.stringify(flags.grep)}`, 2);
}

/**
 * `loopdeck log LOOP [DATE] PHASE`: lines of a phase transcript (the last --lines N, default 50,
 * or N from --from LINE), or the lines matching --grep RE (grep -E on the host, each with its
 * line number), escape sequences stripped unless --raw; --follow prints lines as they arrive until
 * SIGINT. The engine is started and caught up (its follower keeps the index a jump needs).
 */
export async function logTranscript(core: Core, words: readonly string[], flags: LogFlags, write: (text: string) => void): Promise<number> {
  checkLogUsage(words, flags);
  const [loop = '', second = '', third] = words;
  const phase = third ?? second;
  const wanted = count(flags.lines, 'lines', 50);
  const from = flags.from === undefined ? null : count(flags.from, 'from', 1);
  let ref: TranscriptRef;
  try {
    const date = third === undefined ? await core.services.transcripts.newestDate(loop, phase) : second;
    ref = { loop, date, phase };
    await core.services.transcripts.open(ref);
  } catch (err) {
    throw new LogError(messageOf(err), 1);
  }
  const show = (text: string): string => (flags.raw ? text : stripEscapes(text));
  const print = (rows: readonly TranscriptRow[]): void => {
    for (const r of rows) write(`${show(r.text)}${r.cut ? ' [line cut at 1 MiB]' : ''}\n`);
  };
  if (flags.grep !== undefined) {
    const found = await core.services.transcripts.search({ ...ref, query: flags.grep, regex: true, ignoreCase: false, maxHits: 1000 }, localUser()).catch((err: unknown) => {
      throw new LogError(messageOf(err), 1);
    });
    for (const h of found.hits) write(`${h.n}:${show(h.text)}\n`);
    if (found.truncated || found.timedOut) write(`loopdeck: ${found.timedOut ? 'the search timed out' : 'more lines matched'}; ${found.hits.length} shown.\n`);
    return found.total > 0 ? 0 : 1;
  }
  // The range, in requests of at most TRANSCRIPT_MAX_ROWS rows.
  let next: number;
  let left = wanted;
  if (from === null) {
    const tail = await core.services.transcripts.lines({ ...ref, at: 'end', count: Math.min(wanted, TRANSCRIPT_MAX_ROWS) });
    next = Math.max(1, tail.lines - wanted + 1);
    if (wanted <= TRANSCRIPT_MAX_ROWS) {
      print(tail.rows);
      left = 0;
      next = tail.lines + 1;
    }
  } else next = from;
  while (left > 0) {
    const got = await core.services.transcripts.lines({ ...ref, at: { line: next }, count: Math.min(left, TRANSCRIPT_MAX_ROWS) });
    print(got.rows);
    if (got.rows.length === 0) break;
    left -= got.rows.length;
    next = (got.rows.at(-1)?.n ?? next) + 1;
  }
  if (!flags.follow) return 0;
  return follow(core, ref, next, print);
}

/** Print the lines from `next` on as the follower sees them, until SIGINT or SIGTERM. */
async function follow(core: Core, ref: TranscriptRef, first: number, print: (rows: readonly TranscriptRow[]) => void): Promise<number> {
  let next = first;
  let ino: string | null = null;
  let busy = Promise.resolve();
  const catchUp = (): void => {
    busy = busy.then(async () => {
      for (;;) {
        const got = await core.services.transcripts.lines({ ...ref, at: { line: next }, count: TRANSCRIPT_MAX_ROWS });
        if (ino !== null && got.ino !== ino) process.stderr.write(`loopdeck: ${got.path} was replaced; following the new file.\n`);
        ino = got.ino;
        if (got.lines < next - 1) {
          process.stderr.write(`loopdeck: ${got.path} was truncated; following it from line 1.\n`);
          next = 1;
          continue;
        }
        print(got.rows);
        next = (got.rows.at(-1)?.n ?? next - 1) + 1;
        if (got.rows.length < TRANSCRIPT_MAX_ROWS) return;
      }
    }).catch((err: unknown) => {
      process.stderr.write(`loopdeck: ${messageOf(err)}\n`);
    });
  };
  const unsubscribe = core.services.subscribe((event, payload) => {
    if (event !== 'transcript.changed') return;
    if (payload.loop === ref.loop && payload.date === ref.date && payload.phase === ref.phase) catchUp();
  });
  const refresh = setInterval(() => void core.services.transcripts.open(ref).catch(() => undefined), FOLLOW_REFRESH_MS);
  const done = new Promise<void>((ok) => {
    process.once('SIGINT', ok);
    process.once('SIGTERM', ok);
  });
  core.engine.run();
  catchUp();
  await done;
  clearInterval(refresh);
  unsubscribe();
  await busy;
  return 0;
}
