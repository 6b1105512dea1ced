import { posix } from 'node:path';
import type { Cycle } from '../../../shared/domain';
import { phaseCap, type LoopConfig } from '../config/schema';
import { classifyCycleFiles, type PhaseFile } from '../text/cycle-layout';
import { derivePhase, deriveCycle } from '../loops/phase-status';
import { rcFileParser } from '../loops/rc-file';
import { statusFileParser } from '../loops/status-file';
import { transcriptParser } from '../transcripts/transcript-parser';
import type { LineParser, PhaseFileKind, PhaseRecord } from '../text/line-parser';
import { FileReadError, type DirEntry, type FileSource } from '../sources/file-source';

/**
 * What of a night's file is read once for its kept summary, from its start (stamps and rc files
 * are small; a bigger one is read this far) — but a transcript from its end: its verdict is its
 * last counting line, and the rest of it is not what a night's summary keeps.
 */
export const OLD_NIGHT_FILE_BYTES = 256 * 1024;
export const OLD_NIGHT_LOG_TAIL_BYTES = 64 * 1024;

const PARSERS: Readonly<Record<PhaseFileKind, LineParser<unknown>>> = {
  status: statusFileParser as LineParser<unknown>,
  log: transcriptParser as LineParser<unknown>,
  rc: rcFileParser as LineParser<unknown>,
};

interface ReadFile {
  readonly file: PhaseFile;
  readonly records: readonly PhaseRecord[];
  readonly first: number;
  readonly last: number;
}

async function readRecords(source: FileSource, path: string, entry: DirEntry, file: PhaseFile): Promise<ReadFile | null> {
  const size = entry.stat.size;
  const tail = file.kind === 'log';
  const length = Math.min(size, tail ? OLD_NIGHT_LOG_TAIL_BYTES : OLD_NIGHT_FILE_BYTES);
  const offset = tail ? size - length : 0;
  let buf: Buffer;
  try {
    buf = length > 0 ? await source.read(path, offset, length) : Buffer.alloc(0);
  } catch (err) {
    if (err instanceof FileReadError) return null;
    throw err;
  }
  // What follows the last newline is no line yet (the empty rest, a torn line, or a cut head's
  // end), as for a followed file; a tail starts inside a line.
  let lines = buf.toString('utf8').split('\n').slice(0, -1);
  if (offset > 0) lines = lines.slice(1);
  const parser = PARSERS[file.kind];
  let state = parser.initial();
  const records: PhaseRecord[] = [];
  lines.forEach((text, i) => {
    const out = parser.line(state, text, i + 1, path);
    state = out.state;
    for (const r of out.result.records) records.push(r as PhaseRecord);
  });
  const first = Math.min(entry.stat.mtimeMs, entry.stat.birthtimeMs ?? entry.stat.mtimeMs);
  return { file, records, first, last: entry.stat.mtimeMs };
}

/**
 * One night older than the followed window, read once for its kept summary: its folder listed,
 * its phase files read within the bounds above and parsed in memory, its cycle derived by the same
 * rules as a followed one (FORMATS.md §2.4). Nothing of it goes to the store but the summary the
 * caller makes of it: not its records, not its offsets. Null when the folder is gone.
 */
export async function readOldNight(source: FileSource, loop: string, config: LoopConfig, date: string, now: Date): Promise<Cycle | null> {
  const dir = posix.join(config.runs, date);
  let listing;
  try {
    listing = await source.list(dir);
  } catch (err) {
    if (err instanceof FileReadError) return null;
    throw err;
  }
  if (listing === null) return null;
  const entries = new Map(listing.entries.filter((e) => !e.isDirectory).map((e) => [e.name, e]));
  const files = classifyCycleFiles([...entries.keys()], config.phases, config.layout);
  const read = (await Promise.all(files.map((f) => readRecords(source, posix.join(dir, f.name), entries.get(f.name) as DirEntry, f)))).filter((r): r is ReadFile => r !== null);
  const phases = config.phases.map((phase) => {
    const own = read.filter((r) => r.file.phase === phase);
    const of = (kind: PhaseFileKind) => own.find((r) => r.file.kind === kind);
    const firsts = own.map((r) => r.first);
    const lasts = own.map((r) => r.last);
    return derivePhase(
      {
        loop,
        phase,
        statusRecords: of('status')?.records ?? [],
        logRecords: of('log')?.records ?? [],
        stages: own
          .filter((r) => r.file.kind === 'rc' && r.file.stage !== null)
          .map((r) => ({ stage: r.file.stage ?? '', records: r.records, mtimeMs: r.last }))
          .sort((a, b) => a.stage.localeCompare(b.stage)),
        hasLog: of('log') !== undefined,
        hasStatus: of('status') !== undefined,
        firstFileTime: firsts.length ? new Date(Math.min(...firsts)).toISOString() : null,
        lastFileTime: lasts.length ? new Date(Math.max(...lasts)).toISOString() : null,
      },
      now,
      phaseCap(config, phase),
    );
  });
  return deriveCycle(date, phases, now, config.cap);
}
