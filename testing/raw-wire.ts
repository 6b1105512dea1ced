import { createHash, randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

/**
 * Send raw bytes to a server and collect everything it answers until it closes (or `waitMs`
 * passes): for requests no well-behaved client library would send.
 */
export function rawExchange(port: number, bytes: string | Buffer, waitMs = 5_000): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(Buffer.concat(chunks).toString('latin1'));
    };
    const timer = setTimeout(done, waitMs);
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      // One complete HTTP answer is enough; keep-alive would otherwise hold the socket open.
      const text = Buffer.concat(chunks).toString('latin1');
      const head = text.indexOf('\r\n\r\n');
      const length = /content-length: *(\d+)/i.exec(text);
      if (head < 0) return;
      if (length ? text.length >= head + 4 + Number(length[1]) : text.endsWith('\r\n0\r\n\r\n')) done();
    });
    socket.on('error', done);
    socket.on('close', done);
    // No half-close: Node's HTTP server drops a request whose client has ended its side.
    socket.on('connect', () => socket.write(bytes));
  });
}

/** A WebSocket frame built by hand, with every field settable (including wrong ones). */
export interface RawFrame {
  readonly opcode: number;
  readonly payload?: Buffer;
  readonly fin?: boolean;
  /** RSV1..3 as bits 0b100, 0b010, 0b001. */
  readonly rsv?: number;
  /** Clients must mask; false sends an unmasked frame. */
  readonly mask?: boolean;
  /** Claim this payload length in the header instead of the real one. */
  readonly declaredLength?: number;
}

/** Encode a frame as a client would put it on the wire. */
export function encodeFrame(frame: RawFrame): Buffer {
  const payload = frame.payload ?? Buffer.alloc(0);
  const length = frame.declaredLength ?? payload.length;
  const first = ((frame.fin ?? true) ? 0x80 : 0) | (((frame.rsv ?? 0) & 7) << 4) | (frame.opcode & 0x0f);
  const masked = frame.mask ?? true;
  let header: Buffer;
  if (length < 126) {
    header = Buffer.from([first, (masked ? 0x80 : 0) | length]);
  } else if (length < 65536) {
    header = Buffer.alloc(4);
    header[0] = first;
    header[1] = (masked ? 0x80 : 0) | 126;
    header.writeUInt16BE(length, 2);
  } else {
    header = Buffer.alloc(10);
    header[0] = first;
    header[1] = (masked ? 0x80 : 0) | 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  if (!masked) return Buffer.concat([header, payload]);
  const key = randomBytes(4);
  const body = Buffer.from(payload);
  for (let i = 0; i < body.length; i++) body[i] = (body[i] ?? 0) ^ (key[i % 4] ?? 0);
  return Buffer.concat([header, key, body]);
}

/** A text frame carrying `value` as JSON. */
export function jsonFrame(value: unknown): Buffer {
  return encodeFrame({ opcode: 1, payload: Buffer.from(JSON.stringify(value)) });
}

/** A server → client frame as read off the wire (servers never mask). */
export interface ServerFrame {
  readonly opcode: number;
  readonly payload: Buffer;
}

/** Split the bytes a server sent into frames; an incomplete tail is left out. */
export function decodeFrames(bytes: Buffer): ServerFrame[] {
  const frames: ServerFrame[] = [];
  let at = 0;
  while (at + 2 <= bytes.length) {
    const opcode = (bytes[at] ?? 0) & 0x0f;
    let length = (bytes[at + 1] ?? 0) & 0x7f;
    let start = at + 2;
    if (length === 126) {
      if (start + 2 > bytes.length) break;
      length = bytes.readUInt16BE(start);
      start += 2;
    } else if (length === 127) {
      if (start + 8 > bytes.length) break;
      length = Number(bytes.readBigUInt64BE(start));
      start += 8;
    }
    if (start + length > bytes.length) break;
    frames.push({ opcode, payload: bytes.subarray(start, start + length) });
    at = start + length;
  }
  return frames;
}

/** The status code of the first close frame among `bytes`, if any. */
export function closeCodeOf(bytes: Buffer): number | null {
  const close = decodeFrames(bytes).find((f) => f.opcode === 8);
  return close && close.payload.length >= 2 ? close.payload.readUInt16BE(0) : null;
}

/** An upgraded raw WebSocket connection: the socket, and everything received after the handshake. */
export interface RawWs {
  readonly socket: Socket;
  /** Bytes received after the 101 answer. */
  received(): Buffer;
  /** Resolves when the server has closed the TCP connection. */
  readonly closed: Promise<void>;
}

/** Open a WebSocket by hand (token in the query) so frames can be sent byte by byte. */
export function rawWebSocket(port: number, token: string | null, timeoutMs = 10_000): Promise<RawWs> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const key = randomBytes(16).toString('base64');
    const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    let head = Buffer.alloc(0);
    let body: Buffer[] = [];
    let upgraded = false;
    const closed = new Promise<void>((ok) => socket.once('close', () => ok()));
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('WebSocket handshake timed out'));
    }, timeoutMs);
    socket.on('error', (err) => {
      if (!upgraded) reject(err);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      if (!upgraded) reject(new Error(`WebSocket refused: ${head.toString('latin1').split('\r\n')[0] ?? ''}`));
    });
    socket.on('data', (c: Buffer) => {
      if (upgraded) return void body.push(c);
      head = Buffer.concat([head, c]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      const text = head.subarray(0, end).toString('latin1');
      if (!text.startsWith('HTTP/1.1 101') || !text.includes(accept)) {
        socket.destroy();
        return;
      }
      upgraded = true;
      clearTimeout(timer);
      body = [head.subarray(end + 4)];
      resolve({ socket, received: () => Buffer.concat(body), closed });
    });
    const query = token === null ? '' : `?token=${encodeURIComponent(token)}`;
    socket.write(
      `GET /ws${query} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
  });
}
