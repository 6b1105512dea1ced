import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFleetServer } from './fleet-server';
import { seedFleetHistory, seedGatewayHistory, seedServerHistory } from './seed-history';
import { WatchedTime } from '../state/watched-time';
import { MODEL_NAMES } from './fleet-sim';
import { databasePath } from '../config/paths';
import { Store } from '../store/store';
import type { Migrations } from '../store/migrations';
import { appendAudit, initDemoGit, writeDeliverRecord, writeDemoClone } from './demo-ledgers';
import { deadmanComment, DEMO_REPO, demoIssue, demoPulls, liveGreen, livePull, pastComments } from './demo-pulls';
import { startGithubSim } from './github-sim';

/** A running demo: a temporary runner folder that advances by itself, and its config. */
export interface DemoRunner {
  readonly dir: string;
  readonly runsDir: string;
  readonly configPath: string;
  /** The live fleet server the demo's proxies point at. */
  readonly fleetUrl: string;
  /** The demo's GitHub stand-in (github-sim.ts), its config's `github.apiUrl`. */
  readonly githubUrl: string;
  /** Stop advancing and close the fleet server and the GitHub stand-in (the folder stays until the OS cleans its temp folder). */
  stop(): Promise<void>;
}

/** Options for the demo. */
export interface DemoOptions {
  /** Where to create the runner folder; a new temp folder by default. */
  readonly dir?: string;
  /** Seconds of demo time per real second; 1 plays a live cycle in about three minutes. */
  readonly speed?: number;
  /**
   * The database schema the demo's history is written in (main/core/engine/migrations.ts, which a
   * feature may not import): its callers pass it, since the CLI loads the demo before the core.
   */
  readonly migrations: Migrations;
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

const ESC = '\u001b';
const red = (t: string): string => `${ESC}[31m${t}${ESC}[0m`;
const green = (t: string): string => `${ESC}[32m${t}${ESC}[0m`;
const bold = (t: string): string => `${ESC}[1m${t}${ESC}[0m`;

/**
 * A remediate agent's transcript as the runner keeps it (stdout with the test runner's colours):
 * what it read, the fixes it made, the gates and the suite; how it ends tells why the phase ended
 * as it did (a failing suite, or an agent that gave up without committing).
 */
function remediateTranscript(outcome: Outcome, day: number): string {
  const lines: string[] = ['Reading RELIABILITY_LOG.md backlog: 4 items for tonight', '$ git checkout -b reliability/nightly'];
  for (const [i, item] of ['REL-101', 'REL-102', 'REL-103'].entries()) {
    lines.push(`${bold(item)}: writing a failing test first`, `$ pytest -q tests/test_sync.py::test_retry_${i}`, `${red('F')}`, `${red('FAILED')} tests/test_sync.py::test_retry_${i} - AssertionError: expected 3 retries, got 1`);
    lines.push(`${item}: patching web/lib/sync.ts`, `$ pytest -q tests/test_sync.py::test_retry_${i}`, green('.'), `${green('1 passed')} in 0.4${i}s`);
  }
  lines.push('$ ./gates.sh', 'ast_refresh: ok', 'lint: ok', 'types: ok');
  lines.push('$ pytest -q');
  for (let i = 0; i < 300; i++) lines.push(`tests/test_${String((i * 7 + day) % 97).padStart(2, '0')}.py::test_case_${i} ${green('PASSED')}`);
  if (outcome === 'failed') {
    // The runner's disk filled up under the suite: the runner's fault, not the agent's (failure attribution).
    lines.push("OSError: [Errno 28] No space left on device: '/srv/runs/.pytest_cache/v/cache/lastfailed'");
    lines.push('Traceback (most recent call last):', '  File "tests/test_sync.py", line 88, in test_backoff_cap', '    assert backoff(10) <= 30', 'AssertionError');
    lines.push(`${red('FAILED')} tests/test_sync.py::test_backoff_cap`, `${red('3 failed')}, ${green('1204 passed')} in 412.77s`, 'suite: exit code 2');
  } else if (outcome === 'incomplete') {
    lines.push('tests/test_ws.py::test_reconnect_storm ...', '[stream watchdog] no output for 600s; killing the agent process group', 'agent exited 0 without committing to the nightly branch');
  } else {
    lines.push(`${green('1207 passed')} in 398.12s`, '$ git commit -m "reliability: REL-101 REL-102 REL-103"');
  }
  return `${lines.join('\n')}\n`;
}

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
  w('remediate.log', remediateTranscript(outcome, day.getUTCDate()));
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
  // Now and then a deliver exits 0 without its verdict line: incomplete, and a broken contract (no-verdict).
  const noVerdict = !incomplete && n % 4 === 3;
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
          [150, 'deliver.log', text(noVerdict ? 'CI green; done\n' : `NIGHTLY DELIVER READY: loop=reliability prs=1 ${url}\n`)],
          [152, 'deliver.status', s('deliver', noVerdict ? 'OK' : `1 PR(s) green, ready to merge: ${url}`)],
        ] as const)),
  ];
}

/** Write the demo's config for a runs folder, its clone, deliver record, fleet and GitHub stand-in. */
function writeDemoConfig(dir: string, runs: string, fleetUrl: string, github: { readonly url: string; readonly token: string }): string {
  const configPath = join(dir, 'config.yaml');
  const q = JSON.stringify;
  writeFileSync(
    configPath,
    [
      '# Loopdeck demo: a runner folder that advances by itself, and a live inference fleet.',
      'hosts:',
      '  demo-runner: { local: true }',
      'loops:',
      '  reliability:',
      '    host: demo-runner',
      `    runs: ${q(runs)}`,
      `    dir: ${q(join(dir, 'clone'))}`,
      '    phases: [audit, remediate, deliver]',
      '    schedule: "0 0 * * *"',
      '    timezone: UTC',
      '    grace: 2h',
      '    cap: 20h',
      '    ledgers: { audit: RELIABILITY_AUDIT.md, log: RELIABILITY_LOG.md, implementer: docs/implementer-log.md }',
      `    deliverRecord: ${q(join(dir, 'deliver', 'reliability.json'))}`,
      // A lead of a day: the demo's pre-flight for tonight is on the Review at any hour.
      '    preflight: 24h',
      `    models: [${MODEL_NAMES[0]}]`,
      `    repo: ${DEMO_REPO}`,
      '    branch: "reliability/{date}"',
      // Each phase comments on the rolling issue when it ends (the stand-in holds the comments).
      `    deadman: { repo: ${DEMO_REPO} }`,
      // The token is written here, not read from the environment: `loopdeck review --config` on the
      // demo's config runs in another process. It opens only this demo's stand-in, gone with the demo.
      "# The demo's GitHub: a stand-in on loopback (its PRs, checks and merges), answering only this token.",
      'github:',
      `  token: ${q(github.token)}`,
      `  apiUrl: ${q(github.url)}`,
      '  every: 15s',
      'proxies:',
      `  crossbar: { host: demo-runner, kind: crossbar, url: ${q(fleetUrl)}, every: 5s }`,
      `  gateway: { host: demo-runner, kind: gateway, url: ${q(fleetUrl)}, every: 5s, shedThreshold: 80 }`,
      `  gpu-a: { host: demo-runner, kind: llama-server, url: ${q(`${fleetUrl}/llama/gpu-a`)}, every: 5s }`,
      `  vllm-c: { host: demo-runner, kind: vllm, url: ${q(`${fleetUrl}/vllm/gpu-c`)}, every: 5s }`,
      // What the fleet costs: each GPU host by the hour (the demo's usage rows name no model to price per token).
      'costs: { currency: USD, hosts: { gpu-a: 1.2, gpu-b: 1.2, gpu-c: 2.4 } }',
      'drills:',
      // Due every week, and never run in a fresh demo: "Waiting on you" lists it as due.
      `  sigterm-drain: { host: demo-runner, cwd: ${q(dir)}, timeout: 2m, every: 7d, args: { mode: [graceful, abrupt] },`,
      `    command: ${q('echo "drain drill ($LOOPDECK_ARG_MODE): SIGTERM to the gateway stand-in"; for i in 1 2 3 4 5 6; do echo "in-flight request $i drained"; sleep 1; done; echo "drain complete: 0 requests lost"')} }`,
      '',
    ].join('\n'),
  );
  return configPath;
}

/**
 * Create a runner folder with a week of finished cycles (a no-op night, an incomplete and a failed
 * remediate, a deliver stuck on a check) and play live cycles in accelerated time: phases start,
 * stages write rc lines, verdicts land, every third cycle's remediate ends incomplete, and now and
 * then a deliver exits 0 without its verdict line (a broken contract, as the demo's DEFERRED row is).
 */
export async function startDemo(options: DemoOptions): Promise<DemoRunner> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'loopdeck-demo-'));
  const speed = options.speed ?? 1;
  const runs = join(dir, 'runs');
  mkdirSync(runs, { recursive: true });
  mkdirSync(join(dir, 'deliver'), { recursive: true });
  const today = new Date(Math.floor(Date.now() / DAY) * DAY);
  const history: Outcome[] = ['ok', 'no-op', 'incomplete', 'failed', 'deliver-incomplete', 'ok'];
  const pastDays = history.map((_, i) => new Date(today.getTime() - (history.length - i) * DAY));
  history.forEach((outcome, i) => writePastCycle(runs, pastDays[i] ?? today, outcome, 80 + i * 2));
  const clone = join(dir, 'clone');
  const numbering = writeDemoClone(clone, pastDays.map(dateName));
  initDemoGit(clone, join(dir, 'origin.git'));
  const deliverFile = join(dir, 'deliver', 'reliability.json');
  writeDeliverRecord(deliverFile, {
    loop: 'reliability',
    branch: `reliability/${dateName(pastDays[4] ?? today)}`,
    pr: 88,
    url: 'https://github.com/acme/radon/pull/88',
    status: 'incomplete',
    check: 'ci/test',
    updated_at: new Date(today.getTime() - 2 * DAY + 10 * 3_600_000).toISOString(),
  });
  // The two servers polled directly stay up unless forced down: their cards and KV-cache are
  // there whenever the demo is opened; gpu-b and gpu-d have the outages.
  const fleet = await startFleetServer({ hosts: 4, steady: ['gpu-a', 'gpu-c'] });
  // A month of the same fleet's history, so the capacity charts have something to show at once.
  const store = Store.open(databasePath(join(dir, 'data')), { migrations: options.migrations });
  try {
    // gpu-b down for 40 minutes inside the incomplete night's remediate (01:00 on): that night is the fleet's doing.
    const incompleteDay = pastDays[history.indexOf('incomplete')] ?? today;
    const down = { host: 'gpu-b', from: incompleteDay.getTime() + 3 * 3_600_000, to: incompleteDay.getTime() + 3 * 3_600_000 + 40 * 60_000 };
    seedFleetHistory(store, 'crossbar', fleet.sim, 30, new Date(), [down]);
    // The servers polled directly, with their KV-cache and tokens a second.
    seedServerHistory(store, 'gpu-a', 'gpu-a', fleet.sim, 30, new Date());
    seedServerHistory(store, 'vllm-c', 'gpu-c', fleet.sim, 30, new Date());
    seedGatewayHistory(store, 'gateway', fleet.sim, 30, new Date());
    // The demo's Loopdeck ran all month, as its fleet history says: its nights are put down to a
    // cause it watched, not `unknown`.
    new WatchedTime(store).add({ since: Date.now() - 30 * DAY, until: Date.now() });
  } finally {
    store.close();
  }
  // The demo's GitHub answers only a token of this demo's own.
  const token = `ghs_demo_${randomBytes(18).toString('base64url')}`;
  const github = await startGithubSim({ token, repo: DEMO_REPO, prs: demoPulls(pastDays), issue: demoIssue(new Date(today.getTime() - 30 * DAY)) });
  for (const c of pastComments(runs)) github.comment(c.at, c.body);
  const configPath = writeDemoConfig(dir, runs, fleet.url, { url: github.url, token });

  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;
  const playCycle = (n: number): void => {
    if (stopped) return;
    const cycleDir = join(runs, dateName(new Date(today.getTime() + n * DAY)));
    mkdirSync(cycleDir, { recursive: true });
    const date = dateName(new Date(today.getTime() + n * DAY));
    const script = liveScript(n, 100 + n);
    for (const [at, file, line] of script) {
      const t = setTimeout(() => {
        timers.delete(t);
        if (stopped) return;
        const text = line(new Date());
        appendFileSync(join(cycleDir, file), text);
        // The audit phase appends its section to the ledger; deliver records its PR.
        if (file === 'audit.status' && text.includes(' OK')) appendAudit(clone, date, numbering);
        // A phase that ends comments on the rolling dead-man issue.
        const comment = file.endsWith('.status') ? deadmanComment(text.split('\n')[0] ?? '') : null;
        if (comment) github.comment(comment.at, comment.body);
        // Deliver opens the night's PR on the GitHub stand-in; its CI goes green before the verdict.
        if (file === 'deliver.log' && text.startsWith('Opened ')) github.add(livePull(100 + n, date, new Date()));
        if (file === 'deliver.log' && !text.startsWith('Opened ')) github.setChecks(100 + n, liveGreen);
        const ready = /green, ready to merge: (\S+)/.exec(text);
        if (file === 'deliver.status' && ready?.[1]) {
          writeDeliverRecord(deliverFile, { loop: 'reliability', branch: `reliability/${date}`, pr: 100 + n, url: ready[1], status: 'green', check: null, updated_at: new Date().toISOString() });
        }
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
    fleetUrl: fleet.url,
    githubUrl: github.url,
    stop: async () => {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await Promise.all([fleet.close(), github.close()]);
    },
  };
}
