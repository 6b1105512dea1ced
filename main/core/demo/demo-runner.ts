import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A running demo: a temporary runner folder that advances by itself, and its config. */
export interface DemoRunner {
  readonly dir: string;
  readonly runsDir: string;
  readonly configPath: string;
  /** Stop advancing (the folder stays until the OS cleans its temp folder). */
  stop(): void;
}

/** Options for the demo. */
export interface DemoOptions {
  /** Where to create the runner folder; a new temp folder by default. */
  readonly dir?: string;
  /** Seconds of demo time per real second; 1 plays a live cycle in about three minutes. */
  readonly speed?: number;
}

const DAY = 86_400_000;

/** An ISO-8601 stamp with this machine's UTC offset, as the runner's wrapper writes them. */
export function stampTime(d: Date): string {
  const off = -d.getTimezoneOffset();
  const sign = off >= 0 ? '+' : '-';
  const abs = Math.abs(off);
  const local = new Date(d.getTime() + off * 60_000).toISOString().slice(0, 19);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

function dateName(d: Date): string {
  return d.toISOString().slice(0, 10);
}

type Outcome = 'ok' | 'no-op' | 'incomplete' | 'failed' | 'deliver-incomplete';

/** Write one finished historical cycle whose phases ran at realistic hours of that day. */
function writePastCycle(runs: string, day: Date, outcome: Outcome, prBase: number): void {
  const dir = join(runs, dateName(day));
  mkdirSync(dir, { recursive: true });
  const at = (h: number, m: number): string => stampTime(new Date(day.getTime() + h * 3_600_000 + m * 60_000));
  const w = (name: string, text: string): void => writeFileSync(join(dir, name), text);
  if (outcome === 'no-op') {
    w('audit.status', `audit ${at(0, 0)} STARTED\naudit ${at(0, 22)} NO-OP\n`);
    w('audit.log', 'Reading RELIABILITY_AUDIT.md ledger\nNIGHTLY PHASE NO-OP: loop=reliability phase=audit no new findings in the delta range\n');
    w('remediate.status', `remediate ${at(0, 23)} STARTED\nremediate ${at(0, 31)} NO-OP\n`);
    w('remediate.log', 'NIGHTLY PHASE NO-OP: loop=reliability phase=remediate 0 source-actionable P0/P1 items\n');
    w('deliver.status', `deliver ${at(0, 32)} STARTED\ndeliver ${at(0, 40)} 0 PR(s), nothing to merge\n`);
    return;
  }
  w('audit.status', `audit ${at(0, 0)} STARTED\naudit ${at(0, 41)} OK\n`);
  w('audit.log', 'Delta audit: 12 files changed\n  NIGHTLY PHASE NO-OP: loop=reliability phase=audit (quoted from the manual, not a verdict)\nAppended 4 findings\n');
  const stageDone = outcome !== 'incomplete';
  const suiteRc = outcome === 'failed' ? 2 : 0;
  w('remediate.gates.rc', `ast_refresh_rc=\ngates_rc=\nsuite_rc=\nast_refresh_rc=0\ngates_rc=0\n${stageDone ? `suite_rc=${suiteRc}\nDONE\n` : ''}`);
  w('remediate.log', 'REL-101: red 1 / green 1\nREL-102: red 2 / green 2\n');
  if (outcome === 'incomplete') {
    w('remediate.status', `remediate ${at(1, 0)} STARTED\nremediate ${at(9, 12)} INCOMPLETE\nagent exited 0 without committing to the nightly branch\n`);
    return;
  }
  if (outcome === 'failed') {
    w('remediate.status', `remediate ${at(1, 0)} STARTED\nremediate ${at(6, 48)} FAILED 2\n  suite: 3 failed, 1204 passed\n`);
    return;
  }
  w('remediate.status', `remediate ${at(1, 0)} STARTED\nremediate ${at(7, 30)} OK\n`);
  w('deliver.log', 'Pushed reliability branch\n');
  if (outcome === 'deliver-incomplete') {
    const url = `https://github.com/acme/radon/pull/${prBase}`;
    appendFileSync(join(dir, 'deliver.log'), `NIGHTLY DELIVER INCOMPLETE: loop=reliability check=ci/test pr=${url}\n`);
    w('deliver.status', `deliver ${at(7, 31)} STARTED\ndeliver ${at(10, 31)} INCOMPLETE: ci/test\n`);
    return;
  }
  const urls = [`https://github.com/acme/radon/pull/${prBase}`, `https://github.com/acme/radon/pull/${prBase + 1}`];
  appendFileSync(join(dir, 'deliver.log'), `NIGHTLY DELIVER READY: loop=reliability prs=2 ${urls.join(' ')}\n`);
  w('deliver.status', `deliver ${at(7, 31)} STARTED\ndeliver ${at(8, 2)} 2 PR(s) green, ready to merge: ${urls.join(' ')}\n`);
}

/** The steps of a live cycle: seconds from its start, and what to append where. */
function liveScript(n: number, prBase: number): Array<readonly [number, string, (now: Date) => string]> {
  const incomplete = n % 3 === 2;
  const url = `https://github.com/acme/radon/pull/${prBase}`;
  const s = (phase: string, status: string) => (now: Date) => `${phase} ${stampTime(now)} ${status}\n`;
  const text = (t: string) => () => t;
  return [
    [0, 'audit.status', s('audit', 'STARTED')],
    [4, 'audit.log', text('Delta audit: computing the changed surface\n')],
    [20, 'audit.log', text('Appended 3 findings to RELIABILITY_AUDIT.md\n')],
    [30, 'audit.status', s('audit', 'OK')],
    [32, 'remediate.status', s('remediate', 'STARTED')],
    [34, 'remediate.gates.rc', text('ast_refresh_rc=\ngates_rc=\nsuite_rc=\n')],
    [50, 'remediate.gates.rc', text('ast_refresh_rc=0\n')],
    [70, 'remediate.gates.rc', text('gates_rc=0\n')],
    ...(incomplete
      ? ([[110, 'remediate.status', (now: Date) => `remediate ${stampTime(now)} INCOMPLETE\nagent exited 0 without committing to the nightly branch\n`]] as const)
      : ([
          [100, 'remediate.gates.rc', text('suite_rc=0\nDONE\n')],
          [104, 'remediate.status', s('remediate', 'OK')],
          [106, 'deliver.status', s('deliver', 'STARTED')],
          [120, 'deliver.log', text(`Opened ${url}\nWaiting for CI\n`)],
          [150, 'deliver.log', text(`NIGHTLY DELIVER READY: loop=reliability prs=1 ${url}\n`)],
          [152, 'deliver.status', s('deliver', `1 PR(s) green, ready to merge: ${url}`)],
        ] as const)),
  ];
}

/** Write the demo's config for a runs folder. */
function writeDemoConfig(dir: string, runs: string): string {
  const configPath = join(dir, 'config.yaml');
  writeFileSync(
    configPath,
    [
      '# Loopdeck demo: a runner folder that advances by itself.',
      'hosts:',
      '  demo-runner: { local: true }',
      'loops:',
      '  reliability:',
      '    host: demo-runner',
      `    runs: ${JSON.stringify(runs)}`,
      '    phases: [audit, remediate, deliver]',
      '    schedule: "0 0 * * *"',
      '    timezone: UTC',
      '    grace: 2h',
      '    cap: 20h',
      '',
    ].join('\n'),
  );
  return configPath;
}

/**
 * Create a runner folder with a week of finished cycles (a no-op night, an incomplete and a failed
 * remediate, a deliver stuck on a check) and play live cycles in accelerated time: phases start,
 * stages write rc lines, verdicts land, and every third cycle's remediate ends incomplete.
 */
export function startDemo(options: DemoOptions = {}): DemoRunner {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'loopdeck-demo-'));
  const speed = options.speed ?? 1;
  const runs = join(dir, 'runs');
  mkdirSync(runs, { recursive: true });
  const today = new Date(Math.floor(Date.now() / DAY) * DAY);
  const history: Outcome[] = ['ok', 'no-op', 'incomplete', 'failed', 'deliver-incomplete', 'ok'];
  history.forEach((outcome, i) => writePastCycle(runs, new Date(today.getTime() - (history.length - i) * DAY), outcome, 80 + i * 2));
  const configPath = writeDemoConfig(dir, runs);

  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;
  const playCycle = (n: number): void => {
    if (stopped) return;
    const cycleDir = join(runs, dateName(new Date(today.getTime() + n * DAY)));
    mkdirSync(cycleDir, { recursive: true });
    const script = liveScript(n, 100 + n);
    for (const [at, file, line] of script) {
      const t = setTimeout(() => {
        timers.delete(t);
        if (!stopped) appendFileSync(join(cycleDir, file), line(new Date()));
      }, (at * 1000) / speed);
      timers.add(t);
    }
    const last = script[script.length - 1]?.[0] ?? 0;
    const next = setTimeout(() => {
      timers.delete(next);
      playCycle(n + 1);
    }, ((last + 20) * 1000) / speed);
    timers.add(next);
  };
  playCycle(0);
  return {
    dir,
    runsDir: runs,
    configPath,
    stop: () => {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },
  };
}
