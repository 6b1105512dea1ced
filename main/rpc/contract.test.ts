import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands, type LoopdeckBridge } from '../../shared/contract';
import { appendPage, emptyLedgerRows, ledgerRowsOf, type LedgerRows } from '../../shared/ledger-slice';
import { createSession, type Session } from '../core/session/session';
import { connectWsBridge } from '../../testing/ws-bridge';
import { connectRendererWsBridge } from '../../testing/renderer-ws-bridge';
import { startServer, type Served } from '../serve/server';
import { createRunnerFixture, type RunnerFixture } from '../../testing/runner-fixture';
import { createInMemoryIpcPair } from '../../testing/in-memory-ipc';

const DATE = '2026-11-29';
const FINDINGS = 1200;

/** An audit-ledger section of findings `from`..`to` (exclusive). */
function section(title: string, from: number, to: number): string {
  const rows = Array.from({ length: to - from }, (_, k) => `| R-${from + k} | P${2 + ((from + k) % 2)} | resources | src/w_${k % 7}.py:${10 + k} | retry loop ${from + k} has no upper bound |`);
  return [`## ${title}`, '| ID | Sev | Category | Where | Finding |', '|----|-----|----------|-------|---------|', ...rows, '', ''].join('\n');
}

/** Read every page of one cursor; `between` runs after the first page. */
async function allPages(bridge: LoopdeckBridge, limit: number, between: () => Promise<void> = async () => {}): Promise<{ rows: LedgerRows; pages: number }> {
  let rows = emptyLedgerRows;
  let input: { cursor: string | null; offset: number; limit: number } = { cursor: null, offset: 0, limit };
  for (let pages = 1; ; pages++) {
    const r = await bridge.invoke('ledgers.page', input);
    if (!r.ok) throw new Error(r.error.message);
    const page = commands['ledgers.page'].output.parse(r.output);
    if (!page.ready) throw new Error(`not ready: ${page.reason}`);
    rows = appendPage(rows, page);
    if (page.next === null) return { rows, pages };
    if (pages === 1) await between();
    input = { cursor: page.cursor, offset: page.next, limit };
  }
}

interface Transport {
  readonly bridge: LoopdeckBridge;
  close(): Promise<void>;
}

/**
 * The same contract over every transport, against a real core following a real folder: Electron's
 * IPC, serve mode's WebSocket from a Node client, and the same WebSocket from the renderer's own
 * client (the code the browser runs).
 */
const transports: ReadonlyArray<readonly [string, (core: Session) => Promise<Transport>]> = [
  [
    'Electron IPC (in-memory pair)',
    async (core) => {
      const pair = createInMemoryIpcPair(core.handlers);
      const off = core.subscribe((event, payload) => pair.publish(event, payload));
      return { bridge: pair.bridge, close: async () => (off(), pair.close()) };
    },
  ],
  [
    'WebSocket (serve mode)',
    async (core) => {
      const served: Served = await startServer({ session: core, rendererDir: '/nonexistent' });
      const bridge = await connectWsBridge(served.url);
      return { bridge, close: async () => (bridge.close(), await served.close()) };
    },
  ],
  [
    "WebSocket (serve mode, the renderer's client)",
    async (core) => {
      const served: Served = await startServer({ session: core, rendererDir: '/nonexistent' });
      const bridge = await connectRendererWsBridge(served.url);
      return { bridge, close: async () => (bridge.close(), await served.close()) };
    },
  ],
];

describe.each(transports)('contract over %s', (_name, connect) => {
  let fx: RunnerFixture;
  let core: Session;
  let t: Transport;

  let audit: string;

  beforeAll(async () => {
    const clone = mkdtempSync(join(tmpdir(), 'loopdeck-contract-clone-'));
    audit = join(clone, 'RELIABILITY_AUDIT.md');
    writeFileSync(audit, `# Reliability audit\n\n${section('Delta audit 2026-11-28', 0, FINDINGS)}`);
    fx = createRunnerFixture(`    dir: ${JSON.stringify(clone)}\n    ledgers: { audit: RELIABILITY_AUDIT.md }\n`);
    fx.write(DATE, 'audit.status', 'audit 2026-11-29T00:00:04-05:00 STARTED\n');
    core = createSession({ configPath: fx.configPath, dataDir: fx.dataDir, shell: 'serve', pollMs: 60_000, now: () => new Date('2026-11-29T10:00:00Z') });
    await core.start();
    await core.pollOnce();
    t = await connect(core);
  });

  afterAll(async () => {
    await t.close();
    await core.close();
  });

  it('answers app.info with the output schema', async () => {
    const r = await t.bridge.invoke('app.info', {});
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const info = commands['app.info'].output.parse(r.output);
    expect(info.config).toEqual({ state: 'loaded', path: fx.configPath });
  });

  it('answers state.snapshot with the followed loop', async () => {
    const r = await t.bridge.invoke('state.snapshot', {});
    if (!r.ok) throw new Error(r.error.message);
    const snap = commands['state.snapshot'].output.parse(r.output);
    expect(snap.loops[0]?.cycles[0]).toMatchObject({ date: DATE, status: 'running' });
  });

  it('answers state.summary with no ledger rows, its size independent of how many there are', async () => {
    const summaryOf = async () => {
      const r = await t.bridge.invoke('state.summary', {});
      if (!r.ok) throw new Error(r.error.message);
      return { summary: commands['state.summary'].output.parse(r.output), bytes: JSON.stringify(r.output).length };
    };
    // The running audit gains the runner's load at the poll after it was first seen running: that
    // poll first, so the two summaries differ only by what the ledger grew.
    await core.pollOnce();
    const snap = await t.bridge.invoke('state.snapshot', {});
    if (!snap.ok) throw new Error(snap.error.message);
    const { summary, bytes } = await summaryOf();
    expect(Object.keys(summary)).not.toContain('findings');
    expect(summary.ledgerRows.findings).toBe(FINDINGS);
    expect(summary.loops[0]?.cycles[0]).toMatchObject({ date: DATE });
    expect(bytes * 20).toBeLessThan(JSON.stringify(snap.output).length);
    // The ledger grows by half: the summary only by the digits of its counts.
    appendFileSync(audit, section('Delta audit 2026-11-29', FINDINGS, FINDINGS * 1.5));
    await core.pollOnce();
    const grown = await summaryOf();
    expect(grown.summary.ledgerRows.findings).toBe(FINDINGS * 1.5);
    expect(Math.abs(grown.bytes - bytes)).toBeLessThan(16);
  });

  it('pages the ledger rows from one copy: they add up to the snapshot taken when it opened, whatever changes between pages', async () => {
    const before = await t.bridge.invoke('state.snapshot', {});
    if (!before.ok) throw new Error(before.error.message);
    const expected = ledgerRowsOf(commands['state.snapshot'].output.parse(before.output));
    const n = expected.findings.length;
    const delta = new Promise<unknown>((resolve) => {
      const off = t.bridge.on('ledgers.changed', (payload) => (off(), resolve(payload)));
    });
    // Between the first and the second page a section is appended and read: it is not in the
    // copy (it reaches the client as a delta), and no row of the copy is lost or repeated.
    const { rows, pages } = await allPages(t.bridge, 400, async () => {
      appendFileSync(audit, section(`Delta audit 2026-11-30 at ${n}`, 10_000 + n, 10_000 + n + 50));
      await core.pollOnce();
    });
    expect(pages).toBeGreaterThan(2);
    expect(rows).toEqual(expected);
    expect(((await delta) as { findings: { upserted: unknown[] } }).findings.upserted).toHaveLength(50);
    expect((await allPages(t.bridge, 5000)).rows.findings).toHaveLength(n + 50);
  });

  it('refuses a ledger cursor it does not hold, saying to ask again', async () => {
    const r = await t.bridge.invoke('ledgers.page', { cursor: 'nope', offset: 0, limit: 10 });
    expect(r).toMatchObject({ ok: false, error: { code: 'handler-failed', message: expect.stringMatching(/cursor nope has expired.*cursor null/) } });
  });

  it('refuses invalid input before a handler sees it, saying where', async () => {
    const r = await t.bridge.invoke('state.snapshot', { everything: true });
    expect(r).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
    if (!r.ok) expect(r.error.issues?.[0]?.message).toMatch(/everything/);
  });

  it('hosts.untrust validates its input and names a host that has no key to forget', async () => {
    expect(await t.bridge.invoke('hosts.untrust', { host: '' })).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
    const r = await t.bridge.invoke('hosts.untrust', { host: 'runner' });
    expect(r).toMatchObject({ ok: false, error: { code: 'handler-failed', message: expect.stringMatching(/Host runner is local/) } });
  });

  it('refuses an unknown command', async () => {
    expect(await t.bridge.invoke('shell.exec', { cmd: 'rm -rf /' })).toMatchObject({ ok: false, error: { code: 'unknown-command' } });
  });

  it('publishes loop.changed with the changed cycle when a followed file grows', async () => {
    const got = new Promise<unknown>((resolve) => {
      const off = t.bridge.on('loop.changed', (payload) => {
        off();
        resolve(payload);
      });
    });
    fx.append(DATE, 'audit.status', 'audit 2026-11-29T00:41:12-05:00 OK\n');
    await core.pollOnce();
    const payload = (await got) as { loop: string; upserted: { date: string; phases: { name: string; status: string }[] }[] };
    expect(payload.loop).toBe('reliability');
    expect(payload.upserted.map((c) => c.date)).toEqual([DATE]);
    expect(payload.upserted[0]?.phases[0]).toMatchObject({ name: 'audit', status: 'ok' });
  });
});
