import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mergeableOf, simSha, type SimCheck, type SimIssue, type SimPr } from './github-sim';

// The demo's PRs on its GitHub stand-in (github-sim.ts), the ones its nights' verdicts and deliver
// record name: acme/radon, heads `reliability/{date}`. Night 0's #80 is merged and #81 waits
// (stale, and large: over 50 files); night 4's #88 is stuck on ci/test (its deliver said
// INCOMPLETE); night 5's #90 and #91 were READY, both touch web/lib/sync.ts (an overlap), and
// #91's e2e/smoke went red after the READY. Live cycles open theirs as they deliver.

/** The demo's repository. */
export const DEMO_REPO = 'acme/radon';

const HOUR = 3_600_000;

const body = (issue: string, done: string, next: readonly string[]): string =>
  ['## Issue discovered', '', issue, '', '## What was done to fix it', '', done, '', '## Next', '', ...(next.length === 1 ? next : next.map((s) => `- ${s}`)), ''].join('\n');

const passing: readonly SimCheck[] = [
  { kind: 'status', name: 'ci/test', state: 'success' },
  { kind: 'run', name: 'ci/lint', conclusion: 'success' },
];

function pr(number: number, head: string, createdAt: Date, o: Pick<SimPr, 'title' | 'body' | 'files' | 'checks'> & Partial<Pick<SimPr, 'reviews' | 'author'>>): SimPr {
  return {
    number,
    head,
    sha: simSha(`acme/radon#${number}@${head}`),
    author: o.author ?? 'reliability-bot',
    createdAt: createdAt.toISOString(),
    additions: o.files.length * 9 + 14,
    deletions: o.files.length * 3 + 2,
    reviews: o.reviews ?? [],
    mergeableState: mergeableOf(o.checks),
    state: 'open',
    merged: false,
    mergedAt: null,
    mergedBy: null,
    ...o,
  };
}

/**
 * The PRs of the demo's past nights: `days` are their midnights (UTC, oldest first, as the demo's
 * history: ok, no-op, incomplete, failed, deliver-incomplete, ok); each PR opened when its night's
 * deliver ran (about 07:31).
 */
export function demoPulls(days: readonly Date[]): SimPr[] {
  const at = (i: number, h: number): Date => new Date((days[i]?.getTime() ?? 0) + h * HOUR);
  const head = (i: number): string => `reliability/${at(i, 0).toISOString().slice(0, 10)}`;
  const merged = pr(80, head(0), at(0, 7.6), {
    title: 'reliability: REL-041 REL-042 bound the broker retry loop',
    body: body('The retry loop had no upper bound when the broker answered 503 (R-101, R-102).', 'Capped retries at 3 with jittered backoff; tests inject the 503 storm.', ['Fixed with green deployment']),
    files: ['scripts/exit_orders.py', 'tests/test_exit_orders.py'],
    checks: passing,
    reviews: [{ login: 'maria-ops', state: 'APPROVED' }],
  });
  Object.assign(merged, { state: 'closed', merged: true, mergedAt: at(1, 9).toISOString(), mergedBy: 'maria-ops' });
  // Large: the fixtures regenerated for the quote feed, over 50 files.
  const fixtures = Array.from({ length: 62 }, (_, i) => `tests/fixtures/quotes/feed_${String(i).padStart(2, '0')}.json`);
  return [
    merged,
    pr(81, head(0), at(0, 7.6), {
      title: 'reliability: REL-043 fsync the quote cache before rename',
      body: body('The quote cache was written without fsync before rename (R-104).', 'fsync before rename; the fixtures regenerated under the new writer.', ['**Quote feed**: re-seed the staging cache from the new fixtures before merging.']),
      files: ['web/lib/quotes.ts', 'tests/test_quotes.py', ...fixtures],
      checks: passing,
    }),
    pr(88, head(4), at(4, 7.6), {
      title: 'reliability: REL-052 REL-053 reconnect storm and state fsync',
      body: body('The websocket reconnect storm starved the state writer (R-118, R-119).', 'Backoff on reconnect; the state file is fsynced before rename.', ['**CI**: re-run ci/test once the flaky runner is replaced.']),
      files: ['daemon/state.py', 'tests/test_ws.py', 'tests/test_state.py'],
      checks: [
        { kind: 'status', name: 'ci/test', state: 'failure' },
        { kind: 'run', name: 'ci/lint', conclusion: 'success' },
      ],
    }),
    pr(90, head(5), at(5, 7.6), {
      title: 'reliability: REL-101 REL-102 sync retries and backoff cap',
      body: body('sync retried once instead of three times (R-123, R-124).', 'Retries counted per attempt; backoff capped at 30 s.', [
        '**Gateway**: raise the sync timeout to 45 s in the staging env before merging.',
        '**Runbook**: note the new retry cap in the on-call page.',
      ]),
      files: ['web/lib/sync.ts', 'tests/test_sync.py'],
      checks: [...passing, { kind: 'run', name: 'e2e/smoke', conclusion: 'success' }],
      reviews: [{ login: 'maria-ops', state: 'APPROVED' }],
    }),
    pr(91, head(5), at(5, 7.7), {
      title: 'reliability: REL-103 sync error no longer swallowed',
      body: body('The fallback `a | b` swallowed the upstream error (R-125).', 'The error is logged and surfaced to the caller.', ['**Alerting**: add the sync-error rate to the gateway dashboard.']),
      files: ['web/lib/sync.ts', 'web/lib/errors.ts'],
      // Green at the READY; e2e/smoke failed on a re-run since.
      checks: [...passing, { kind: 'run', name: 'e2e/smoke', conclusion: 'failure' }],
    }),
  ];
}

/** The PR a live cycle's deliver opens on `date` (its checks pending until `liveGreen`). */
export function livePull(number: number, date: string, now: Date): SimPr {
  return pr(number, `reliability/${date}`, now, {
    title: `reliability: nightly ${date} fixes`,
    body: body('Tonight\'s delta audit found 3 new findings.', 'Each fixed test-first; the gates and the suite pass.', ['Fixed with green deployment']),
    files: [`daemon/nightly/${date}.py`, `tests/test_nightly_${date.replaceAll('-', '_')}.py`],
    checks: [
      { kind: 'status', name: 'ci/test', state: 'pending' },
      { kind: 'run', name: 'ci/lint', conclusion: null },
    ],
  });
}

/** The checks of a live PR once its CI is green. */
export const liveGreen: readonly SimCheck[] = passing;

/** The demo loop's rolling dead-man issue (`deadman.label` by default), opened before its history. */
export function demoIssue(since: Date): SimIssue {
  return { number: 12, title: 'reliability: nightly dead-man', label: 'reliability-nightly', createdAt: since.toISOString() };
}

/**
 * The dead-man comment a status line calls for (`<phase> <stamp> <status>`): every line but
 * STARTED ends its phase, and the phase comments then. Null for any other line.
 */
export function deadmanComment(line: string): { readonly at: Date; readonly body: string } | null {
  const m = /^(\S+) (\S+) (.+)$/.exec(line.trim());
  if (!m?.[1] || !m[2] || !m[3] || m[3] === 'STARTED') return null;
  const at = new Date(Date.parse(m[2]));
  return Number.isFinite(at.getTime()) ? { at, body: `${m[1]}: ${m[3].slice(0, 200)}` } : null;
}

/** The dead-man comments of the cycles already in `runs` (one per ended phase, at its end). */
export function pastComments(runs: string): { readonly at: Date; readonly body: string }[] {
  const out: { at: Date; body: string }[] = [];
  for (const date of readdirSync(runs)) {
    for (const phase of ['audit', 'remediate', 'deliver']) {
      const file = join(runs, date, `${phase}.status`);
      if (!existsSync(file)) continue;
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        const c = line.startsWith(`${phase} `) ? deadmanComment(line) : null;
        if (c) out.push(c);
      }
    }
  }
  return out;
}
