import { mkdirSync, writeFileSync } from 'node:fs';

/** A file name for the names fuzz: its bytes, and whether Loopdeck follows it (and as what text). */
export interface HostileName {
  readonly bytes: Buffer;
  readonly followed: boolean;
  /** The name as followed (valid UTF-8 only). */
  readonly text: string;
}

/**
 * Names with every byte 1-255 but `/` in them (`f<byte>x`), a few multi-byte ones (valid UTF-8
 * that is followed, C1 controls and bidi overrides that are not, a BOM) and the name that once
 * forged another file's stat line over SSH.
 */
export function hostileNames(): HostileName[] {
  const out: HostileName[] = [];
  const add = (bytes: Buffer, followed: boolean): void => {
    out.push({ bytes, followed, text: followed ? bytes.toString('utf8') : '' });
  };
  for (let b = 1; b <= 255; b++) {
    if (b === 0x2f) continue;
    add(Buffer.from([0x66, b, 0x78]), b >= 0x20 && b <= 0x7e);
  }
  add(Buffer.from('fé', 'utf8'), true);
  add(Buffer.from('f漢字x', 'utf8'), true);
  add(Buffer.from('f\u{1f600}x', 'utf8'), true);
  add(Buffer.from('\ufefff', 'utf8'), true);
  add(Buffer.from('f\u0085x', 'utf8'), false);
  add(Buffer.from('f\u202ex', 'utf8'), false);
  add(Buffer.from('f\u2066x', 'utf8'), false);
  add(Buffer.from([0x66, 0xed, 0xa0, 0x80]), false); // a UTF-16 surrogate, not UTF-8
  add(Buffer.from('audit.status\n~1|1|1|0|regular file|zz'), false);
  return out;
}

/** Create a file (text) or, with null, a folder named by raw bytes inside `dir`. */
export function writeNamed(dir: string, name: Buffer, text: string | null): void {
  const path = Buffer.concat([Buffer.from(`${dir}/`), name]);
  if (text === null) mkdirSync(path);
  else writeFileSync(path, text);
}
