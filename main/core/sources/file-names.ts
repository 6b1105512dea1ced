/**
 * Which file names Loopdeck follows, and how a refused one is named in a problem. One rule for
 * every source, local and SSH alike, so a folder reads the same whichever way it is reached.
 *
 * A name is followed when it is valid UTF-8 without an unsafe character (shared/unsafe-text:
 * control characters, bidi formatting characters, line separators). Anything else cannot travel through a line-based host script without
 * becoming ambiguous (a newline in a name forged a stat line of another file), cannot round-trip
 * through a JavaScript string (invalid UTF-8 decodes lossily, so two names could collide), or
 * would show as something it is not (U+202E reverses the text after it).
 */

import { escapeUnsafeChar, hasUnsafe } from '../../../shared/unsafe-text';

// ignoreBOM keeps a leading U+FEFF in the name (by default it would be dropped, and the name changed).
const STRICT = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A name as the host gave it: followed as `name`, or refused (its bytes kept for the message). */
export type HostName = { readonly kind: 'name'; readonly name: string } | { readonly kind: 'refused'; readonly bytes: Buffer };

/** Decide a name from its bytes. */
export function hostName(bytes: Buffer): HostName {
  let name: string;
  try {
    name = STRICT.decode(bytes);
  } catch {
    return { kind: 'refused', bytes };
  }
  return hasUnsafe(name) ? { kind: 'refused', bytes } : { kind: 'name', name };
}

/**
 * A name's bytes as text a person can read and nothing can hide in: printable characters as they
 * are, a backslash doubled, a byte that is not UTF-8 as `\xNN`, an unsafe character as
 * shared/unsafe-text escapes it (`\x1b`, `\u202e`): two names never read the same.
 */
export function escapeNameBytes(bytes: Buffer): string {
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const len = utf8Length(bytes, i);
    if (len === 0) {
      out += `\\x${(bytes[i] ?? 0).toString(16).padStart(2, '0')}`;
      i += 1;
      continue;
    }
    const ch = bytes.toString('utf8', i, i + len);
    // A stray byte is `\xNN` above ASCII, a character `\uNNNN`: the byte 0x85 and U+0085 read apart.
    out += ch === '\\' ? '\\\\' : hasUnsafe(ch) ? escapeUnsafeChar(ch) : ch;
    i += len;
  }
  return out;
}

/** The length of the well-formed UTF-8 sequence at `i`, or 0 when there is none. */
function utf8Length(b: Buffer, i: number): number {
  const c = b[i] ?? 0;
  const cont = (k: number): boolean => ((b[i + k] ?? 0) & 0xc0) === 0x80;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    const c1 = b[i + 1] ?? 0;
    if ((c === 0xe0 && c1 < 0xa0) || (c === 0xed && c1 > 0x9f)) return 0;
    return cont(1) && cont(2) ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    const c1 = b[i + 1] ?? 0;
    if ((c === 0xf0 && c1 < 0x90) || (c === 0xf4 && c1 > 0x8f)) return 0;
    return cont(1) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

/** At most this many refused names are spelled out in one folder's problem. */
const NAMED = 5;

/** The problem of a folder holding names Loopdeck does not follow, naming the folder and the names. */
export function refusedNamesMessage(host: string, dir: string, refused: readonly Buffer[]): string {
  const names = refused.slice(0, NAMED).map((b) => `"${escapeNameBytes(b)}"`);
  const more = refused.length > NAMED ? ` and ${refused.length - NAMED} more` : '';
  const what = refused.length === 1 ? 'a name' : `${refused.length} names`;
  return (
    `Host ${host}: ${dir} holds ${what} Loopdeck does not follow (control characters, bidi marks or bytes that are not UTF-8): ` +
    `${names.join(', ')}${more}. Rename or remove ${refused.length === 1 ? 'it' : 'them'}; nothing else in the folder is affected.`
  );
}
