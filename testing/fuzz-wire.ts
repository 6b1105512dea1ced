import { connect } from 'node:net';
import { commands } from '../shared/contract';
import { encodeFrame } from './raw-wire';

/** A seeded PRNG (mulberry32): the same seed throws the same inputs, so a failure can be replayed. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** A float in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }
  /** One of `items`, evenly. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
  /** `n` random bytes. */
  bytes(n: number): Buffer {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = this.int(256);
    return b;
  }
  /** A short string of printable ASCII, %-junk and the odd high byte. */
  junk(max: number): string {
    const alphabet = 'abcXYZ019-_.~/?#[]@!$&\'()*+,;=%% :"<>{}|\\^`';
    let s = '';
    for (let i = this.int(max + 1); i > 0; i--) s += this.chance(0.05) ? String.fromCharCode(0x80 + this.int(0x780)) : alphabet[this.int(alphabet.length)];
    return s;
  }
  /** Any JSON value, nested a little. */
  json(depth = 2): unknown {
    switch (this.int(depth > 0 ? 8 : 5)) {
      case 0: return null;
      case 1: return this.chance(0.5);
      case 2: return this.pick([0, -1, 1.5, 2 ** 53, -(2 ** 31), 1e308, this.int(1000)]);
      case 3: return this.junk(20);
      case 4: return this.pick(['', 'runner', 'reliability', '2026-11-29', '../../etc/passwd', 'x'.repeat(5000)]);
      case 5: return Array.from({ length: this.int(4) }, () => this.json(depth - 1));
      default: return Object.fromEntries(Array.from({ length: this.int(4) }, () => [this.pick(['host', 'key', 'minutes', 'runId', 'from', 'to', 'name', '__proto__', 'constructor', this.junk(6)]), this.json(depth - 1)]));
    }
  }
}

/** One generated HTTP request: the bytes to send, some of them malformed. */
export function httpRequest(rng: Rng, port: number, token: string, last: boolean): string {
  const method = rng.pick(['GET', 'GET', 'GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'TRACE', 'PATCH', 'get', 'G\u00e9T', 'CONNECT', rng.junk(8)]);
  const auth = rng.chance(0.5) ? `token=${rng.chance(0.9) ? token : rng.pick(['%E0', '%', rng.junk(30), token.slice(1)])}` : '';
  const path = rng.pick([
    '/', '/index.html', '/assets/app.js', '/ws', '/missing', '//', '/%ZZ', '/%E0%A4%A', '/%00', '/..%2f..%2fetc%2fpasswd', '/%2e%2e/%2e%2e/',
    `/${rng.junk(40)}`, `/${'a'.repeat(rng.int(9000))}`, `/${'%'.repeat(rng.int(50))}`,
  ]);
  const query = auth && rng.chance(0.9) ? `?${auth}` : rng.chance(0.2) ? `?${rng.junk(20)}` : '';
  const target = rng.pick([`${path}${query}`, `${path}${query}`, `${path}${query}`, 'http://[/', `http://[/${query}`, `http://127.0.0.1:${port}${path}${query}`, '*', `http://${rng.junk(10)}${path}${query}`, rng.junk(20)]);
  const version = rng.pick(['HTTP/1.1', 'HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/9', rng.junk(5)]);
  const eol = rng.chance(0.95) ? '\r\n' : '\n';
  const headers: string[] = [];
  if (rng.chance(0.9)) headers.push(`Host: ${rng.pick([`127.0.0.1:${port}`, `127.0.0.1:${port}`, `localhost:${port}`, 'evil.example', '', rng.junk(12)])}`);
  if (rng.chance(0.1)) headers.push(`Host: 127.0.0.1:${port}`);
  if (rng.chance(0.2)) headers.push(`Origin: ${rng.pick([`http://127.0.0.1:${port}`, 'http://evil.example', 'null', rng.junk(15)])}`);
  if (rng.chance(0.4)) {
    const value = rng.pick([token, token, '%E0', '%', '%%%', encodeURIComponent(token), rng.junk(20), '']);
    headers.push(`Cookie: ${rng.chance(0.3) ? `${rng.junk(8)}=${rng.junk(8)}; ` : ''}loopdeck_token=${value}${rng.chance(0.2) ? '; loopdeck_token=%E0' : ''}`);
  }
  if (rng.chance(0.05)) headers.push(`X-Huge: ${'h'.repeat(rng.int(40_000))}`);
  if (rng.chance(0.05)) for (let i = rng.int(200); i > 0; i--) headers.push(`X-${i}: ${rng.junk(10)}`);
  if (rng.chance(0.1)) headers.push(`${rng.junk(10)}: ${rng.junk(20)}`);
  if (rng.chance(0.1)) headers.push('Upgrade: websocket', 'Connection: Upgrade', ...(rng.chance(0.5) ? ['Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==', `Sec-WebSocket-Version: ${rng.pick(['13', '8', 'x'])}`] : []));
  let body = '';
  if (rng.chance(0.15)) {
    body = rng.junk(200);
    if (rng.chance(0.5)) headers.push(`Content-Length: ${rng.pick([body.length, body.length + 10, -1, 'abc', 2 ** 40])}`);
    else headers.push('Transfer-Encoding: chunked');
  }
  if (last && rng.chance(0.9)) headers.push('Connection: close');
  return `${method} ${target} ${version}${eol}${headers.map((h) => `${h}${eol}`).join('')}${eol}${body}`;
}

const COMMAND_NAMES = Object.keys(commands);
const JUNK_NAMES = ['no.such', '', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'app.info.x', 'APP.INFO'];

/** One generated client frame: mostly well-formed requests with junk in them, some broken frames. */
export function wsFrame(rng: Rng): Buffer {
  const roll = rng.int(100);
  if (roll < 45) {
    const request = { id: rng.chance(0.9) ? rng.int(1e6) : rng.json(0), name: rng.chance(0.7) ? rng.pick(COMMAND_NAMES) : rng.pick(JUNK_NAMES), input: rng.chance(0.3) ? {} : rng.json() };
    return encodeFrame({ opcode: 1, payload: Buffer.from(JSON.stringify(request)) });
  }
  if (roll < 55) return encodeFrame({ opcode: 1, payload: Buffer.from(JSON.stringify(rng.json())) });
  if (roll < 60) return encodeFrame({ opcode: rng.pick([9, 10]), payload: rng.bytes(rng.int(126)) });
  if (roll < 64) return encodeFrame({ opcode: 1, payload: Buffer.from(rng.junk(60)) });
  if (roll < 67) return encodeFrame({ opcode: 2, payload: rng.bytes(rng.int(300)) });
  if (roll < 70) return encodeFrame({ opcode: 1, payload: rng.bytes(rng.int(100)) });
  if (roll < 74) return encodeFrame({ opcode: rng.int(16), payload: rng.bytes(rng.int(200)), rsv: rng.int(8), fin: rng.chance(0.5), mask: rng.chance(0.8) });
  if (roll < 77) return encodeFrame({ opcode: rng.pick([1, 2, 8]), payload: rng.bytes(rng.int(20)), declaredLength: rng.pick([2 ** 40, 2 ** 20 + 1, 2 ** 53, 2 ** 63, 70_000]) });
  if (roll < 80) {
    const code = Buffer.alloc(2);
    code.writeUInt16BE(rng.pick([0, 999, 1004, 1005, 1006, 1015, 2999, 5000, 65535, 1000 + rng.int(20)]));
    return encodeFrame({ opcode: 8, payload: Buffer.concat([code, rng.chance(0.5) ? rng.bytes(rng.int(10)) : Buffer.alloc(0)]) });
  }
  if (roll < 84) return Buffer.concat([encodeFrame({ opcode: 1, payload: Buffer.from('{"id":1,'), fin: false }), encodeFrame({ opcode: rng.pick([0, 1, 2, 9]), payload: Buffer.from('"name":"app.info"}') })]);
  if (roll < 88) return encodeFrame({ opcode: 0, payload: rng.bytes(rng.int(50)), fin: rng.chance(0.5) });
  if (roll < 90 && rng.chance(0.05)) return encodeFrame({ opcode: 1, payload: Buffer.alloc(2 ** 20 + 1 + rng.int(1000), 0x20) });
  if (roll < 95) return rng.bytes(1 + rng.int(64));
  return encodeFrame({ opcode: 1, payload: Buffer.from(JSON.stringify({ id: rng.int(100), name: 'state.snapshot', input: {} })) });
}

/**
 * Throw `bytes` at the server on a new connection and read whatever comes back, until it closes
 * the connection or falls quiet for `idleMs`. Never rejects: refusals and resets are the point.
 */
export function throwAt(port: number, bytes: Buffer | string, idleMs = 150): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.setTimeout(idleMs, () => socket.destroy());
    socket.on('error', () => socket.destroy());
    socket.on('close', () => resolve());
    socket.on('data', () => undefined);
    socket.on('connect', () => socket.write(bytes));
  });
}

/** Run `count` jobs with at most `width` at a time. */
export async function pool(count: number, width: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) await job(next++);
  };
  await Promise.all(Array.from({ length: Math.min(width, count) }, lane));
}
