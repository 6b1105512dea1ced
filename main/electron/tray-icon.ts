// The tray / app icon, drawn in code and encoded as PNG, so the shell needs no binary asset at run
// time and `scripts/make-icons.ts` can write the same image into build/icons/ for packaging.
import { deflateSync } from 'node:zlib';

/** An RGB colour, 0–255 per channel. */
export type Rgb = readonly [number, number, number];

/** The icon's accent colour: the console's blue. */
export const ICON_COLOR: Rgb = [0x4f, 0x8c, 0xff];

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 as PNG chunks use it. */
export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = (CRC_TABLE[(c ^ b) & 0xff] ?? 0) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length, 0);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body), 0);
  return Buffer.concat([length, body, crc]);
}

/** Encode 8-bit RGBA pixels (row-major, `width * height * 4` bytes) as a PNG file. */
export function encodePng(width: number, height: number, rgba: Uint8Array): Buffer {
  if (rgba.length !== width * height * 4) throw new Error(`encodePng: expected ${width * height * 4} bytes, got ${rgba.length}`);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // colour type RGBA
  // bytes 10–12: deflate, adaptive filtering, no interlace — all 0
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 4 + 1)] = 0; // filter: none
    Buffer.from(rgba.buffer, rgba.byteOffset + y * width * 4, width * 4).copy(raw, y * (width * 4 + 1) + 1);
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', new Uint8Array(0))]);
}

/**
 * Draw the icon at `size`×`size`: a ring (the loop) with a dot on it (where it stopped),
 * antialiased by 4×4 supersampling, on a transparent background.
 */
export function drawIcon(size: number, color: Rgb = ICON_COLOR): Uint8Array {
  const px = new Uint8Array(size * size * 4);
  const c = size / 2;
  const outer = size * 0.42;
  const inner = size * 0.27;
  // The dot sits on the ring's midline at 45°, a little thicker than the ring, like a bead.
  const onRing = ((outer + inner) / 2) * Math.SQRT1_2;
  const dotX = c + onRing;
  const dotY = c - onRing;
  const dotR = size * 0.13;
  const n = 4;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      let hits = 0;
      for (let sy = 0; sy < n; sy++) {
        for (let sx = 0; sx < n; sx++) {
          const fx = x + (sx + 0.5) / n;
          const fy = y + (sy + 0.5) / n;
          const d = Math.hypot(fx - c, fy - c);
          if ((d <= outer && d >= inner) || Math.hypot(fx - dotX, fy - dotY) <= dotR) hits++;
        }
      }
      const i = (y * size + x) * 4;
      px[i] = color[0];
      px[i + 1] = color[1];
      px[i + 2] = color[2];
      px[i + 3] = Math.round((255 * hits) / (n * n));
    }
  }
  return px;
}

/** The icon as a PNG file at `size`×`size`. */
export function iconPng(size: number, color: Rgb = ICON_COLOR): Buffer {
  return encodePng(size, size, drawIcon(size, color));
}
