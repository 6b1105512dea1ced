import fc from 'fast-check';
import type { LineParser } from '../main/core/text/line-parser';
import { parseLines } from '../main/core/text/lines';

/**
 * Test support: feed `text` in chunks cut at `cuts`, parsing complete lines as they appear and
 * carrying the state through JSON between chunks, exactly as the follower and the store do.
 */
export function chunkedParse<S, R>(parser: LineParser<S, R>, text: string, cuts: readonly number[], source: string) {
  const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const chunks = [...at, text.length].map((end, i, all) => text.slice(i === 0 ? 0 : all[i - 1], end));
  let buffer = '';
  let state = parser.initial();
  let firstLine = 1;
  let consumedBytes = 0;
  const records: R[] = [];
  const problems: { source: string; line: number | null; message: string }[] = [];
  for (const chunk of chunks) {
    buffer += chunk;
    const out = parseLines(parser, buffer, source, { state, firstLine });
    records.push(...out.records);
    problems.push(...out.problems);
    state = JSON.parse(JSON.stringify(out.state)) as S;
    firstLine += out.lines;
    consumedBytes += out.consumedBytes;
    buffer = buffer.slice(buffer.lastIndexOf('\n') + 1);
  }
  return { records, problems, state, consumedBytes };
}

/** Test support: texts made of known lines and arbitrary strings, one a line, maybe with a torn tail. */
export const linesArb = (pieces: readonly string[]) =>
  fc
    .tuple(fc.array(fc.oneof(fc.constantFrom(...pieces), fc.string()), { maxLength: 30 }), fc.string({ maxLength: 10 }))
    .map(([lines, tail]) => lines.map((l) => `${l}\n`).join('') + tail);
