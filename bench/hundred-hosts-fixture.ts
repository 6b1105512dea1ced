/**
 * The loops of figure 6d: two a host, each with today's cycle whose remediate phase is running
 * (a transcript, `remediate.log`, and a gates rc file, as figure 1's loop), and yesterday's done;
 * the config naming every host of the fleet (and, when asked, one more whose port never answers);
 * and the writer that appends one transcript line a second to every loop.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SshdFleet } from './sshd-fleet';
import { stamp, today } from './lib';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** One loop of the fixture, with the files the bench appends to. */
export interface FixtureLoop {
  readonly name: string;
  readonly host: string;
  readonly transcript: string;
  readonly gates: string;
}

/** Host names: h001… */
export const hostName = (i: number): string => `h${String(i + 1).padStart(3, '0')}`;

function writeCycle(runs: string, date: string, running: boolean, now: number): { transcript: string; gates: string } {
  const cyc = join(runs, date);
  mkdirSync(cyc, { recursive: true });
  const t = Date.parse(`${date}T00:00:05Z`);
  writeFileSync(join(cyc, 'audit.status'), `audit ${stamp(new Date(t))} STARTED\naudit ${stamp(new Date(t + HOUR))} OK\n`);
  writeFileSync(join(cyc, 'audit.log'), Array.from({ length: 50 }, (_, i) => `[${stamp(new Date(t))}] step ${i}: tool_use Bash pytest -q tests/test_${i}.py ok`).join('\n') + '\n');
  writeFileSync(join(cyc, 'audit.gates.rc'), 'ast_refresh_rc=0\ngates_rc=0\nsuite_rc=0\nDONE\n');
  const started = running ? Math.min(now - HOUR, t + 2 * HOUR) : t + 2 * HOUR;
  writeFileSync(join(cyc, 'remediate.status'), `remediate ${stamp(new Date(started))} STARTED\n${running ? '' : `remediate ${stamp(new Date(started + HOUR))} OK\n`}`);
  const transcript = join(cyc, 'remediate.log');
  writeFileSync(transcript, `[${stamp(new Date(started))}] remediate: start\n`);
  const gates = join(cyc, 'remediate.gates.rc');
  writeFileSync(gates, 'ast_refresh_rc=0\n');
  return { transcript, gates };
}

/** Write two loops a host under `dir`; the config is written by `writeConfig`. */
export function writeLoops(dir: string, hosts: number): FixtureLoop[] {
  const now = Date.now();
  const date = today();
  const yesterday = new Date(now - DAY).toISOString().slice(0, 10);
  const loops: FixtureLoop[] = [];
  for (let h = 0; h < hosts; h++) {
    for (const suffix of ['a', 'b']) {
      const name = `loop-${hostName(h)}-${suffix}`;
      const runs = join(dir, 'runs', name);
      writeCycle(runs, yesterday, false, now);
      const { transcript, gates } = writeCycle(runs, date, true, now);
      loops.push({ name, host: hostName(h), transcript, gates });
    }
  }
  return loops;
}

/** Two loops on the host that never answers (their runs folder exists locally, unread). */
function hungLoops(dir: string): string[] {
  return ['a', 'b'].flatMap((suffix) => [`  loop-hung-${suffix}:`, '    host: hung', `    runs: ${JSON.stringify(join(dir, 'runs', `loop-hung-${suffix}`))}`, '    phases: [audit, remediate, deliver]', '    cycles: 2']);
}

/** The config: every fleet endpoint but the last (the baseline's) as a host with its two loops; `hungPort` adds one more. */
export function writeConfig(dir: string, file: string, fleet: SshdFleet, loops: readonly FixtureLoop[], hungPort: number | null): string {
  const hosts = ['hosts:'];
  const body = ['loops:'];
  const names = [...new Set(loops.map((l) => l.host))];
  names.forEach((name, i) => {
    const ep = fleet.endpoints[i];
    if (!ep) throw new Error(`the fleet has no endpoint for host ${name}`);
    hosts.push(`  ${name}: { ssh: "${fleet.user}@127.0.0.1:${ep.port}", identityFile: ${JSON.stringify(ep.clientKey)}, knownHosts: ${JSON.stringify(fleet.knownHosts)} }`);
  });
  for (const l of loops) {
    body.push(`  ${l.name}:`, `    host: ${l.host}`, `    runs: ${JSON.stringify(join(dir, 'runs', l.name))}`, '    phases: [audit, remediate, deliver]', '    cycles: 2');
  }
  if (hungPort !== null) {
    const key = fleet.endpoints[0]?.clientKey ?? '';
    hosts.push(`  hung: { ssh: "${fleet.user}@127.0.0.1:${hungPort}", identityFile: ${JSON.stringify(key)}, knownHosts: ${JSON.stringify(fleet.knownHosts)} }`);
    body.push(...hungLoops(dir));
  }
  const path = join(dir, file);
  writeFileSync(path, [...hosts, ...body, ''].join('\n'));
  return path;
}

/**
 * Append one transcript line a second to every loop, the loops' seconds spread evenly (a tick
 * every 50 ms writes the loops whose turn falls in it), until the returned function is called.
 */
export function startWriters(loops: readonly FixtureLoop[]): { stop: () => number } {
  const TICK_MS = 50;
  const perTick = loops.length / (1000 / TICK_MS);
  let next = 0;
  let owed = 0;
  let lines = 0;
  const timer = setInterval(() => {
    owed += perTick;
    while (owed >= 1) {
      owed -= 1;
      const l = loops[next % loops.length];
      next += 1;
      if (!l) continue;
      appendFileSync(l.transcript, `[${stamp(new Date())}] tick ${next}: tool_use Read web/lib/file-${next % 97}.ts\n`);
      lines += 1;
    }
  }, TICK_MS);
  return {
    stop: () => {
      clearInterval(timer);
      return lines;
    },
  };
}
