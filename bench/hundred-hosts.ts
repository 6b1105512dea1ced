/**
 * Figure 6d: a hundred SSH hosts. `loopdeck serve` follows 100 host entries (distinct sshd ports
 * on 127.0.0.1, see sshd-fleet.ts), two loops each, every loop's transcript growing a line a
 * second. Measured: serve's RSS, its idle CPU, line to the renderer-side event against `ssh tail
 * -F` (figure 1's bound), SSH connections per host, how the first connects spread, and whether a
 * host that accepts TCP and never answers delays the others' first reads (a start without it,
 * then one with it).
 */
import { type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { connectCounter, type EventCounter } from './event-counter';
import { startWriters, writeConfig, writeLoops, type FixtureLoop } from './hundred-hosts-fixture';
import { figure, log, median, onCleanup, percentile, round, rssMb, sleep, spawnTracked, startServe, stopChild, tempDir, until, type Figure, type ServeProcess } from './lib';
import { cpuOver } from './serve-cpu';
import { startSshdFleet, type SshdFleet } from './sshd-fleet';
import { watchTcp, type TcpSeen } from './tcp-watch';

const HOSTS = 100;

/** A TCP listener that accepts and never says a word: an SSH server whose handshake hangs. */
async function silentListener(): Promise<{ port: number; accepted: () => number }> {
  const socks = new Set<Socket>();
  let accepted = 0;
  const srv: Server = createServer((s) => {
    accepted += 1;
    socks.add(s);
    s.on('error', () => undefined);
    s.once('close', () => socks.delete(s));
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  onCleanup(() => {
    for (const s of socks) s.destroy();
    srv.close();
  });
  const addr = srv.address();
  return { port: typeof addr === 'object' && addr ? addr.port : 0, accepted: () => accepted };
}

/** One serve started on the fleet, with its event client and when each loop was first read. */
interface Started {
  readonly served: ServeProcess;
  readonly counter: EventCounter;
  /** performance.now() at spawn. */
  readonly t0: number;
  /** Loop → ms after spawn of its first `loop.changed`. */
  readonly firstRead: Map<string, number>;
  /** Step number → performance.now() of the first event holding it. */
  readonly stepSeen: Map<number, number>;
}

async function startOn(configPath: string, dir: string, tag: string): Promise<Started> {
  const home = join(dir, `home-${tag}`);
  mkdirSync(join(home, '.ssh'), { recursive: true });
  const t0 = performance.now();
  const served = await startServe(['--config', configPath, '--data', join(dir, `data-${tag}`)], { HOME: home, SSH_AUTH_SOCK: '' });
  const counter = await connectCounter(served.url);
  const firstRead = new Map<string, number>();
  const stepSeen = new Map<number, number>();
  counter.onFrame = (text) => {
    if (!text.includes('"loop.changed"')) return;
    const at = performance.now();
    const loop = /"loop":"([^"]+)"/.exec(text)?.[1];
    if (loop && !firstRead.has(loop)) firstRead.set(loop, at - t0);
    for (const m of text.matchAll(/"name":"step(\d+)"/g)) if (!stepSeen.has(Number(m[1]))) stepSeen.set(Number(m[1]), at);
  };
  // A console asks for the state at once: the core opens now, not at serve's latest.
  void counter.invoke('state.summary').catch(() => undefined);
  return { served, counter, t0, firstRead, stepSeen };
}

/** Per host, ms after spawn when both its loops had been read; null for a host not read yet. */
function hostFirstReads(s: Started, loops: readonly FixtureLoop[]): Map<string, number | null> {
  const byHost = new Map<string, number | null>();
  for (const l of loops) {
    const t = s.firstRead.get(l.name);
    const prev = byHost.get(l.host);
    byHost.set(l.host, t === undefined || prev === null ? null : Math.max(prev ?? 0, t));
  }
  return byHost;
}

const allRead = (s: Started, loops: readonly FixtureLoop[]): boolean => [...hostFirstReads(s, loops).values()].every((t) => t !== null);

/** How the first connects to the hosts spread: the most within any 100 ms, and first to last. */
function spread(seen: TcpSeen, ports: readonly number[], t0: number): { most100ms: number; spanMs: number; firstMs: number; connected: number } {
  const times = ports.map((p) => seen.firstAt.get(p)).filter((t): t is number => t !== undefined).sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while ((times[i] ?? 0) - (times[j] ?? 0) >= 100) j++;
    most = Math.max(most, i - j + 1);
  }
  return { most100ms: most, spanMs: round((times.at(-1) ?? 0) - (times[0] ?? 0), 0), firstMs: round((times[0] ?? t0) - t0, 0), connected: times.length };
}

/** Start serve, wait until every host's loops were read (or `timeoutMs`); the spread of connects too. */
async function firstReads(configPath: string, dir: string, tag: string, loops: readonly FixtureLoop[], ports: readonly number[], timeoutMs: number) {
  const tcp = watchTcp(ports, 5);
  const s = await startOn(configPath, dir, tag);
  await until(() => allRead(s, loops), timeoutMs, `${tag}: every host's loops read`, 50).catch((err: Error) => log(`figure 6d: ${err.message}`));
  const reads = [...hostFirstReads(s, loops).values()];
  const done = reads.filter((t): t is number => t !== null);
  return { s, tcp, reads: { all: done.length === reads.length, lastMs: round(Math.max(...done), 0), p50Ms: round(median(done), 0), p95Ms: round(percentile(done, 95), 0), read: done.length } };
}

/** Lines appended to random loops' gates rc files, until the renderer-side event and `tail -F` saw them. */
async function probes(s: Started, loops: readonly FixtureLoop[], tailSeen: Map<number, number>, seconds: number): Promise<{ serve: number[]; tail: number[]; lost: number; n: number; bySlice: number[][] }> {
  const appendedAt: number[] = [];
  const end = performance.now() + seconds * 1000;
  for (let i = 0; performance.now() < end; i++) {
    const l = loops[Math.floor(Math.random() * loops.length)];
    if (!l) continue;
    appendedAt.push(performance.now());
    appendFileSync(l.gates, `step${i}_rc=0\n`);
    // Random gaps, so appends do not phase-lock with the engine's timers.
    await sleep(150 + Math.random() * 200);
  }
  await sleep(3000); // the last ones' time to arrive
  const serve: number[] = [];
  const tail: number[] = [];
  // The serve latencies by 10-s slice of the load: where in it the tail lies (the first seconds, or all along).
  const bySlice: number[][] = [];
  let lost = 0;
  appendedAt.forEach((t, i) => {
    const a = s.stepSeen.get(i);
    const b = tailSeen.get(i);
    if (a === undefined) lost += 1;
    else {
      serve.push(a - t);
      (bySlice[Math.floor((t - (appendedAt[0] ?? t)) / 10_000)] ??= []).push(a - t);
    }
    if (b !== undefined) tail.push(b - t);
  });
  return { serve, tail, lost, n: appendedAt.length, bySlice };
}

/** `ssh -p BASELINE tail -F` of every loop's gates rc file: the baseline of figure 1, on its own port. */
function startTail(fleet: SshdFleet, loops: readonly FixtureLoop[], env: NodeJS.ProcessEnv): { child: ChildProcess; seen: Map<number, number>; warm: () => boolean } {
  const ep = fleet.endpoints[HOSTS];
  if (!ep) throw new Error('the fleet has no baseline port');
  const child = spawnTracked('ssh', [
    '-i', ep.clientKey, '-p', String(ep.port), '-o', `UserKnownHostsFile=${fleet.knownHosts}`, '-o', 'BatchMode=yes', '-o', 'IdentitiesOnly=yes', '-F', '/dev/null',
    `${fleet.user}@127.0.0.1`, 'tail', '-q', '-n', '0', '-F', ...loops.map((l) => l.gates),
  ], env);
  const seen = new Map<number, number>();
  let warm = false;
  let buf = '';
  child.stdout?.on('data', (c: Buffer) => {
    const at = performance.now();
    buf += c.toString();
    const lines = buf.split('\n');
    buf = lines.pop() ?? '';
    for (const line of lines) {
      if (line.startsWith('warmup_rc=')) warm = true;
      const m = /^step(\d+)_rc=/.exec(line);
      if (m && !seen.has(Number(m[1]))) seen.set(Number(m[1]), at);
    }
  });
  child.stderr?.resume();
  return { child, seen, warm: () => warm };
}

/** Figure 6d (see the file's comment); `seconds` of load, then idle windows. */
export async function hundredHosts(quick: boolean): Promise<Figure[]> {
  const loadS = quick ? 15 : 60;
  const dir = tempDir('hundred');
  log(`figure 6d: starting ${HOSTS + 1} sshd listeners and a silent one`);
  const fleet = await startSshdFleet(HOSTS + 1);
  const hung = await silentListener();
  const loops = writeLoops(dir, HOSTS);
  const plain = writeConfig(dir, 'plain.yaml', fleet, loops, null);
  const withHung = writeConfig(dir, 'hung.yaml', fleet, loops, hung.port);
  const ports = fleet.endpoints.slice(0, HOSTS).map((e) => e.port);

  // Without the silent host, then with it: the others' first reads should not notice it.
  log('figure 6d: first reads without the silent host');
  const b = await firstReads(plain, dir, 'plain', loops, ports, 90_000);
  const spreadPlain = spread(b.tcp.stop(), ports, b.s.t0);
  b.s.counter.close();
  await b.s.served.stop();
  log(`figure 6d: all read after ${b.reads.lastMs} ms; with the silent host`);
  const a = await firstReads(withHung, dir, 'hung', loops, [...ports, hung.port], 90_000);
  const spreadHung = spread(a.tcp.seen(), ports, a.s.t0);
  log(`figure 6d: all read after ${a.reads.lastMs} ms; ${loadS} s of load`);

  a.tcp.every(250);
  const tail = startTail(fleet, loops, { HOME: join(dir, 'home-hung') });
  // Timing starts once tail -F is following (a warm-up line it has printed).
  const warm = loops[0];
  await until(
    () => {
      // Again until it is printed: one appended before tail -F began following is never shown.
      if (warm && !tail.warm()) appendFileSync(warm.gates, 'warmup_rc=0\n');
      return tail.warm();
    },
    30_000,
    'ssh tail -F to print a warm-up line',
    250,
  ).catch((err: Error) => log(`figure 6d: ${err.message}`));
  const writers = startWriters(loops);
  const rssSamples: number[] = [];
  const sampler = setInterval(() => rssSamples.push(rssMb(a.s.served.pid) ?? 0), 5000);
  const line = await probes(a.s, loops, tail.seen, loadS);
  const lines = writers.stop();
  clearInterval(sampler);
  const rss = rssMb(a.s.served.pid);
  await stopChild(tail.child);

  // Idle: nothing appended; the keepalives, watchers' listings and poll timer still run.
  log('figure 6d: idle');
  await sleep(quick ? 5000 : 10_000);
  const windows: number[] = [];
  for (let i = 0; i < (quick ? 2 : 3); i++) {
    const w = await cpuOver(a.s.served.pid, () => sleep(10_000));
    windows.push((w.cpuMs / w.wallMs) * 100);
  }
  const idlePct = median(windows);
  const tcp = a.tcp.stop();
  a.s.counter.close();
  await a.s.served.stop();

  const maxOpen = Math.max(...ports.map((p) => tcp.maxOpen.get(p) ?? 0));
  const distinct = ports.map((p) => tcp.distinct.get(p) ?? 0);
  const tailP95 = percentile(line.tail, 95);
  const bound = 1.5 * tailP95 + 100;
  const p95 = percentile(line.serve, 95);
  const hungRatio = a.reads.lastMs / b.reads.lastMs;
  log(`figure 6d: RSS ${round(rss ?? 0, 0)} MB, idle ${round(idlePct, 3)} %, line p95 ${round(p95, 1)} ms (bound ${round(bound, 1)}), most connections a host ${maxOpen}`);
  const base = { details: {}, notes: [] as string[] };
  return [
    figure({ ...base, id: '6d-rss', name: `Serve RSS following ${HOSTS} SSH hosts × 2 loops, a line a second each, after ${loadS} s`, value: rss === null ? null : round(rss, 0), unit: 'MB', baseline: null, baselineLabel: '', target: '< 400 MB', pass: rss !== null && rss < 400, details: { samplesMb: rssSamples.map((x) => round(x, 0)), transcriptLines: lines } }),
    figure({ ...base, id: '6d-cpu', name: `Serve idle CPU, ${HOSTS} SSH hosts connected, median of ${windows.length} 10-s windows`, value: round(idlePct, 3), unit: '% of a core', baseline: null, baselineLabel: '', target: '≤ 1 % of a core', pass: idlePct <= 1, details: { windowsPct: windows.map((x) => round(x, 3)) } }),
    figure({
      ...base,
      id: '6d-line',
      name: `Line to the renderer-side event (WebSocket loop.changed), ${HOSTS} hosts under load, p95`,
      value: round(p95, 1),
      unit: 'ms',
      baseline: round(tailP95, 1),
      baselineLabel: 'ssh tail -F p95, same appends',
      target: `≤ 1.5 × baseline + 100 ms (= ${round(bound, 1)} ms)`,
      pass: line.lost === 0 && p95 <= bound,
      details: { n: line.n, lost: line.lost, p50: round(percentile(line.serve, 50), 1), max: round(Math.max(...line.serve), 1), tailP50: round(percentile(line.tail, 50), 1), tailN: line.tail.length, p95ByTenSeconds: line.bySlice.map((xs) => round(percentile(xs ?? [], 95), 1)) },
      notes: line.lost ? [`${line.lost} of ${line.n} appends never reached the event within 3 s of the last`] : [],
    }),
    figure({
      ...base,
      id: '6d-conns',
      name: `SSH connections a host at once (most over ${tcp.looks} looks at /proc/net/tcp, start to end)`,
      value: maxOpen,
      unit: '',
      baseline: null,
      baselineLabel: '',
      target: '≤ 1',
      pass: maxOpen <= 1,
      details: { hostsWithMoreThanOneConnectionInAll: distinct.filter((n) => n > 1).length, mostConnectionsInAll: Math.max(...distinct), silentHostAccepted: hung.accepted(), silentHostMostAtOnce: tcp.maxOpen.get(hung.port) ?? 0 },
    }),
    figure({
      ...base,
      id: '6d-spread',
      name: `First connects of the ${HOSTS} hosts: the most within any 100 ms`,
      value: spreadPlain.most100ms,
      unit: 'hosts',
      baseline: null,
      baselineLabel: '',
      // The issue asks for "not all in the same 100 ms"; a quarter of them is the bound taken here
      // (one tick opened all 100 before the connect gate: 69 of them landed within 100 ms).
      target: `≤ ${HOSTS / 4} (a quarter; not all at once)`,
      pass: spreadPlain.connected === HOSTS && spreadPlain.most100ms <= HOSTS / 4,
      details: { withoutSilentHost: spreadPlain, withSilentHost: spreadHung },
      notes: [`first to last connect ${spreadPlain.spanMs} ms (with the silent host ${spreadHung.spanMs} ms)`],
    }),
    figure({
      ...base,
      id: '6d-hung',
      name: `Spawn to every host's loops first read, with a host whose handshake hangs`,
      value: a.reads.lastMs,
      unit: 'ms',
      baseline: b.reads.lastMs,
      baselineLabel: 'the same start without it',
      target: '≤ 1.2 ×',
      pass: a.reads.all && b.reads.all && hungRatio <= 1.2,
      details: { withSilentHost: a.reads, withoutSilentHost: b.reads },
      notes: [`median host ${a.reads.p50Ms} ms with it, ${b.reads.p50Ms} ms without`],
    }),
  ];
}
