import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32, drawIcon, encodePng, iconPng } from './tray-icon';

function chunks(png: Buffer): { type: string; data: Buffer; crcOk: boolean }[] {
  const out: { type: string; data: Buffer; crcOk: boolean }[] = [];
  let at = 8;
  while (at < png.length) {
    const len = png.readUInt32BE(at);
    const type = png.subarray(at + 4, at + 8).toString('ascii');
    const data = png.subarray(at + 8, at + 8 + len);
    const crcOk = png.readUInt32BE(at + 8 + len) === crc32(png.subarray(at + 4, at + 8 + len));
    out.push({ type, data, crcOk });
    at += 12 + len;
  }
  return out;
}

describe('tray icon PNG', () => {
  it('computes the standard CRC-32', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
  });

  it.each([16, 32])('encodes a valid %ipx RGBA PNG whose pixels decode back', (size) => {
    const png = iconPng(size);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const parts = chunks(png);
    expect(parts.map((c) => c.type)).toEqual(['IHDR', 'IDAT', 'IEND']);
    expect(parts.every((c) => c.crcOk)).toBe(true);
    const ihdr = parts[0]!.data;
    expect([ihdr.readUInt32BE(0), ihdr.readUInt32BE(4), ihdr[8], ihdr[9]]).toEqual([size, size, 8, 6]);
    const raw = inflateSync(parts[1]!.data);
    expect(raw.length).toBe((size * 4 + 1) * size);
    const pixels = drawIcon(size);
    for (let y = 0; y < size; y++) {
      expect(raw[y * (size * 4 + 1)]).toBe(0);
      expect(raw.subarray(y * (size * 4 + 1) + 1, (y + 1) * (size * 4 + 1))).toEqual(Buffer.from(pixels.subarray(y * size * 4, (y + 1) * size * 4)));
    }
  });

  it('draws something visible with a transparent corner', () => {
    const px = drawIcon(16);
    const alphas = Array.from({ length: 256 }, (_, i) => px[i * 4 + 3] ?? 0);
    expect(alphas[0]).toBe(0);
    expect(alphas.filter((a) => a > 200).length).toBeGreaterThan(20);
  });

  it('rejects a pixel buffer of the wrong size', () => {
    expect(() => encodePng(2, 2, new Uint8Array(3))).toThrow(/expected 16 bytes/);
  });
});
