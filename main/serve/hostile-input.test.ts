import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyEvent, EventListener } from '../../shared/contract';
import { emptySnapshot } from '../../shared/domain';
import { fakeHandlers } from '../../testing/fake-handlers';
import { closeCodeOf, decodeFrames, encodeFrame, jsonFrame, rawExchange, rawWebSocket, type RawFrame } from '../../testing/raw-wire';
import { until } from '../../testing/until';
import { startServer, type Served } from './server';
import { connectWsBridge } from '../../testing/ws-bridge';

// A snapshot of ~256 KiB: a client that never reads fills any buffer quickly.
const BIG = { ...emptySnapshot('2025-01-01T06:00:00.000Z'), pad: 'x'.repeat(256 * 1024) } as unknown as ReturnType<typeof emptySnapshot>;
const listeners = new Set<EventListener>();
let big = BIG;
const core = {
  handlers: fakeHandlers({ 'state.snapshot': () => big }),
  subscribe: (l: EventListener) => {
    listeners.add(l);
    return () => listeners.delete(l);
  },
};
const LIMIT = 1024 * 1024;

describe('serve mode under hostile input', () => {
  let served: Served;
  let port: number;
  let token: string;

  /** The server is alive: a normal client gets the page and a WebSocket answer. */
  async function stillServing(): Promise<void> {
    const page = await rawExchange(port, `GET /?token=${token} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
    expect(page).toMatch(/^HTTP\/1\.1 200/);
    const ws = await connectWsBridge(served.url);
    expect(await ws.invoke('app.info', {})).toMatchObject({ ok: true });
    ws.close();
  }

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-hostile-'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Loopdeck</title>');
    served = await startServer({ session: core, rendererDir: dir, maxBufferedBytes: LIMIT });
    ({ port, token } = served);
  });
  afterAll(() => served.close());

  describe('requests that fail to parse get a 400, and the server keeps serving', () => {
    const host = (): string => `Host: 127.0.0.1:${port}\r\n`;
    it.each([
      ['an absolute target with a broken host (http://[/)', () => `GET http://[/ HTTP/1.1\r\n${host()}\r\n`],
      ['http://[/ with the token', () => `GET http://[/?token=${token} HTTP/1.1\r\n${host()}\r\n`],
      ['a token cookie with bad %-encoding', () => `GET / HTTP/1.1\r\n${host()}Cookie: loopdeck_token=%E0\r\n\r\n`],
      ['a path with bad %-encoding, with the token', () => `GET /%ZZ?token=${token} HTTP/1.1\r\n${host()}\r\n`],
      ['a path with bad %-encoding, token in the cookie', () => `GET /assets/%E0%A4%A HTTP/1.1\r\n${host()}Cookie: loopdeck_token=${token}\r\n\r\n`],
    ])('%s', async (_what, request) => {
      const answer = await rawExchange(port, request());
      expect(answer).toMatch(/^HTTP\/1\.1 400/);
      await stillServing();
    });

    it.each([
      ['http://[/ as an upgrade', () => `GET http://[/ws HTTP/1.1\r\n${host()}Upgrade: websocket\r\nConnection: Upgrade\r\n\r\n`],
      ['a bad token cookie on the upgrade', () => `GET /ws HTTP/1.1\r\n${host()}Cookie: loopdeck_token=%E0\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n`],
    ])('%s', async (_what, request) => {
      const answer = await rawExchange(port, request());
      expect(answer).toMatch(/^HTTP\/1\.1 400/);
      await stillServing();
    });

    it('still accepts the right token when a junk cookie of the same name comes first', async () => {
      const answer = await rawExchange(port, `GET / HTTP/1.1\r\n${host()}Cookie: loopdeck_token=%E0; loopdeck_token=${token}\r\nConnection: close\r\n\r\n`);
      expect(answer).toMatch(/^HTTP\/1\.1 200/);
    });

    it('survives an upgrade whose client resets the connection at once', async () => {
      for (let i = 0; i < 20; i++) {
        const { connect } = await import('node:net');
        const s = connect({ host: '127.0.0.1', port });
        await new Promise<void>((ok) => s.once('connect', () => ok()));
        s.write(`GET /ws HTTP/1.1\r\n${host()}Upgrade: websocket\r\nConnection: Upgrade\r\n\r\n`);
        s.resetAndDestroy();
      }
      await stillServing();
    });
  });

  describe('malformed WebSocket frames close only that client', () => {
    const text = (s: string): Buffer => Buffer.from(s);
    const closeWith = (code: number): Buffer => {
      const b = Buffer.alloc(2);
      b.writeUInt16BE(code);
      return b;
    };
    it.each<[string, RawFrame, readonly number[]]>([
      ['a frame over 1 MiB', { opcode: 1, payload: Buffer.alloc(1024 * 1024 + 1, 0x20) }, [1009]],
      ['a header claiming 2^40 bytes', { opcode: 2, declaredLength: 2 ** 40 }, [1009]],
      ['bad UTF-8 in a text frame', { opcode: 1, payload: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]) }, [1007, 1002]],
      ['an unmasked client frame', { opcode: 1, payload: text('{}'), mask: false }, [1002]],
      ['a reserved opcode', { opcode: 3, payload: text('x') }, [1002]],
      ['RSV1 set without an extension', { opcode: 1, payload: text('{}'), rsv: 0b100 }, [1002]],
      ['close code 999', { opcode: 8, payload: closeWith(999) }, [1002]],
      ['a stray continuation', { opcode: 0, payload: text('{}') }, [1002]],
      ['a fragmented ping', { opcode: 9, payload: text('p'), fin: false }, [1002]],
      ['a ping over 125 bytes', { opcode: 9, payload: Buffer.alloc(200) }, [1002]],
    ])('%s', async (_what, frame, codes) => {
      const ws = await rawWebSocket(port, token);
      ws.socket.on('error', () => undefined);
      ws.socket.write(encodeFrame(frame));
      await ws.closed;
      expect(codes).toContain(closeCodeOf(ws.received()));
      await stillServing();
    });

    it.each([
      ['not JSON', encodeFrame({ opcode: 1, payload: Buffer.from('{nope') })],
      ['JSON that is not an object', jsonFrame(42)],
      ['an object that is not a request', jsonFrame({ hello: 'there' })],
    ])('%s closes with 1008', async (_what, bytes) => {
      const ws = await rawWebSocket(port, token);
      ws.socket.write(bytes);
      await ws.closed;
      expect(closeCodeOf(ws.received())).toBe(1008);
    });

    it('an unknown command gets an error result and the connection stays', async () => {
      const ws = await rawWebSocket(port, token);
      ws.socket.write(jsonFrame({ id: 7, name: 'no.such', input: [] }));
      await until(() => decodeFrames(ws.received()).length > 0, 10_000, 'the answer');
      const frame = JSON.parse(decodeFrames(ws.received())[0]?.payload.toString() ?? '') as { id: number; result: { ok: boolean } };
      expect(frame).toMatchObject({ type: 'result', id: 7, result: { ok: false, error: { code: 'unknown-command' } } });
      ws.socket.destroy();
    });
  });

  it('numbers the events each client is sent, from 1, so a client can tell it missed one', async () => {
    const a = await connectWsBridge(served.url);
    const seqA: (number | undefined)[] = [];
    a.on('hosts.changed', (_p, seq) => seqA.push(seq));
    await until(() => {
      for (const l of listeners) l('hosts.changed', { hosts: [] });
      return seqA.length > 0;
    }, 10_000, 'the first event');
    const b = await connectWsBridge(served.url);
    const seqB: (number | undefined)[] = [];
    b.on('hosts.changed', (_p, seq) => seqB.push(seq));
    await until(() => {
      for (const l of listeners) l('hosts.changed', { hosts: [] });
      return seqB.length >= 3;
    }, 10_000, 'events to the second client');
    expect(seqB.slice(0, 3)).toEqual([1, 2, 3]);
    expect(seqA.every((n, i) => n === (seqA[0] ?? 0) + i)).toBe(true);
    a.close();
    b.close();
  });

  describe('a client that stops reading is dropped, not buffered', () => {
    it('when it keeps asking for snapshots', async () => {
      const ws = await rawWebSocket(port, token);
      ws.socket.pause();
      let gone = false;
      ws.socket.on('error', () => (gone = true));
      ws.socket.on('close', () => (gone = true));
      let id = 0;
      // Each check asks once more: without a bound this grows the server by 256 KiB a request.
      await until(
        () => {
          if (!gone) ws.socket.write(jsonFrame({ id: id++, name: 'state.snapshot', input: {} }));
          return gone;
        },
        20_000,
        'the server to drop the client that does not read',
        10,
      );
      // Far fewer answers were produced than asked for: loopback buffers hold a few MiB at most.
      expect(id).toBeLessThan(1500);
      await stillServing();
    });

    it('a reading client still gets one answer larger than the limit (a big ledger\'s snapshot)', async () => {
      big = { ...emptySnapshot('2025-01-01T06:00:00.000Z'), pad: 'z'.repeat(3 * LIMIT) } as unknown as ReturnType<typeof emptySnapshot>;
      try {
        const ws = await connectWsBridge(served.url);
        const got = await ws.invoke('state.snapshot', {});
        expect(got.ok).toBe(true);
        expect(JSON.stringify(got).length).toBeGreaterThan(3 * LIMIT);
        ws.close();
      } finally {
        big = BIG;
      }
    });

    it('when events pile up, while a reading client keeps getting them', async () => {
      const slow = await rawWebSocket(port, token);
      slow.socket.pause();
      let gone = false;
      slow.socket.on('error', () => (gone = true));
      slow.socket.on('close', () => (gone = true));
      const fast = await connectWsBridge(served.url);
      let seen = 0;
      fast.on('notice.raised', () => seen++);
      const payload = { pad: 'y'.repeat(128 * 1024) };
      let sent = 0;
      await until(
        () => {
          for (const l of listeners) l(...(['notice.raised', payload] as unknown as AnyEvent)); // not a notice: a padded frame
          sent++;
          // A write now and then lets the client notice the reset once it is dropped.
          if (!gone) slow.socket.write(jsonFrame({ id: sent, name: 'app.info', input: {} }));
          return gone;
        },
        20_000,
        'the server to drop the client that does not read events',
        10,
      );
      await until(() => seen === sent, 10_000, 'the reading client to get every event');
      fast.close();
    });
  });
});
