import * as z from 'zod';

/**
 * What a refusal to answer for a transcript says while Loopdeck has not read it as it is now
 * (a first read of a large file, or one replaced): the view waits and asks again.
 */
export const TRANSCRIPT_BEING_READ = 'is being read';
/** What a transcript's open answers while its host is not connected (a reconnect, a first start): asked again, like TRANSCRIPT_BEING_READ. */
export const HOST_NOT_REACHABLE_NOW = 'cannot be reached now';

/** The most rows one `transcript.lines` answers. */
export const TRANSCRIPT_MAX_ROWS = 2000;
/** The most hits one `transcript.search` answers. */
export const TRANSCRIPT_MAX_HITS = 1000;
/** The longest search query, in characters. */
export const TRANSCRIPT_MAX_QUERY = 1000;

/**
 * Which transcript: a loop's phase in one cycle. The path is always resolved from the loop's
 * config (runs folder and layout), never taken from a client.
 */
export const TranscriptRefSchema = z.object({
  loop: z.string().min(1).max(200),
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a cycle date YYYY-MM-DD'),
  phase: z.string().min(1).max(200),
});
/** Which transcript. */
export type TranscriptRef = z.infer<typeof TranscriptRefSchema>;

/**
 * What a mark says a line is: the verdict line, the stream watchdog's kill, the wrapper's stop,
 * a refused command, a failure (`Traceback`, `Error:`, `FAILED`, a non-zero exit code).
 */
export const TranscriptMarkKindSchema = z.enum(['verdict', 'watchdog', 'stop', 'refused', 'failure']);
/** What a mark says a line is. */
export type TranscriptMarkKind = z.infer<typeof TranscriptMarkKindSchema>;

/** A line that matters, found while following the transcript: its number, kind and a short quote (escapes stripped). */
export const TranscriptMarkSchema = z.object({ n: z.number().int().positive(), kind: TranscriptMarkKindSchema, text: z.string() });
/** A line that matters. */
export type TranscriptMark = z.infer<typeof TranscriptMarkSchema>;

/** Where a range starts: a line (1-based), a fraction of the lines (0 = the first screen, 1 = the last), or the end (the last `count` lines). */
export const TranscriptAtSchema = z.union([
  z.object({ line: z.number().int().min(1) }).strict(),
  z.object({ fraction: z.number().min(0).max(1) }).strict(),
  z.literal('end'),
]);
/** Where a range starts. */
export type TranscriptAt = z.infer<typeof TranscriptAtSchema>;

/**
 * The file as it is now: `ino` and `size` let a client see that it was replaced (another inode)
 * or truncated (smaller), and say so and reload. `lines` counts a last line without its newline.
 */
const FileNow = {
  host: z.string(),
  path: z.string(),
  size: z.number().int().nonnegative(),
  ino: z.string(),
  lines: z.number().int().nonnegative(),
};

/** What `transcript.open` answers. */
export const TranscriptInfoSchema = z.object({
  ...FileNow,
  /** The phase is running (the view follows it). */
  running: z.boolean(),
  /** Marks in line order (at most 500: the first and the newest). */
  marks: z.array(TranscriptMarkSchema).readonly(),
});
/** What `transcript.open` answers. */
export type TranscriptInfo = z.infer<typeof TranscriptInfoSchema>;

/**
 * One line: `n` 1-based, `text` decoded as UTF-8 (invalid bytes as U+FFFD, NUL kept as U+0000,
 * escape sequences raw: shared/transcript-text neutralises them), without its newline (and a
 * CRLF's CR); `cut` when the line is longer than 1 MiB and only its first 1 MiB is here.
 */
export const TranscriptRowSchema = z.object({ n: z.number().int().positive(), text: z.string(), cut: z.boolean() });
/** One line of a transcript. */
export type TranscriptRow = z.infer<typeof TranscriptRowSchema>;

/** What `transcript.lines` answers: the rows, and the file as it is now. */
export const TranscriptLinesSchema = z.object({
  ...FileNow,
  rows: z.array(TranscriptRowSchema).readonly(),
  /** Bytes brought from the host for this answer (the reader's budget is 4 x the rows' bytes plus a small margin). */
  bytesRead: z.number().int().nonnegative(),
});
/** What `transcript.lines` answers. */
export type TranscriptLines = z.infer<typeof TranscriptLinesSchema>;

/**
 * What a search looks for, as the host's grep is given it: one line of at most TRANSCRIPT_MAX_QUERY
 * characters. The rule of `transcript.search` and of `loopdeck log --grep` alike.
 */
export const TranscriptQuerySchema = z
  .string()
  .min(1, 'a query is not empty')
  .max(TRANSCRIPT_MAX_QUERY, `a query is at most ${TRANSCRIPT_MAX_QUERY} characters`)
  // eslint-disable-next-line no-control-regex -- a newline would make grep read two patterns; NUL cannot be passed at all
  .refine((q) => !/[\n\r\u0000]/.test(q), 'a query is one line, without NUL');

/** A search query: plain text (`grep -F`) or an extended regex (`grep -E`), one line, never shell code. */
export const TranscriptSearchInputSchema = TranscriptRefSchema.extend({
  query: TranscriptQuerySchema,
  regex: z.boolean().default(false),
  ignoreCase: z.boolean().default(false),
  maxHits: z.number().int().min(1).max(TRANSCRIPT_MAX_HITS).default(TRANSCRIPT_MAX_HITS),
}).strict();

/** What `transcript.search` answers: hits in line order (text cut at 4 KiB, escapes raw), and whether the search was cut short. */
export const TranscriptSearchSchema = z.object({
  hits: z.array(z.object({ n: z.number().int().positive(), text: z.string() })).readonly(),
  /** How many lines matched: exact unless `truncated` or `timedOut` (then at least this many). */
  total: z.number().int().nonnegative(),
  /** More lines matched than `maxHits`, or the output passed its byte cap. */
  truncated: z.boolean(),
  /** The search ran out of time on the host (TRANSCRIPT_SEARCH_MS): the hits are those found before. */
  timedOut: z.boolean(),
});
/** What `transcript.search` answers. */
export type TranscriptSearch = z.infer<typeof TranscriptSearchSchema>;

/** How long a client's interest in a transcript lasts after its last `transcript.open` or `transcript.lines` (ms). */
export const TRANSCRIPT_INTEREST_MS = 5 * 60_000;

/**
 * A transcript someone has open changed: its size and complete lines as the follower read them
 * now, and its inode (another one: the file was replaced; a smaller size: truncated).
 */
export const TranscriptChangedSchema = TranscriptRefSchema.extend({
  size: z.number().int().nonnegative(),
  lines: z.number().int().nonnegative(),
  ino: z.string(),
});
/** The payload of `transcript.changed`. */
export type TranscriptChanged = z.infer<typeof TranscriptChangedSchema>;

