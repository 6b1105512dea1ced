import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SummarySchema, type Summary } from '../../../shared/ledger-slice';
import { until } from '../../../testing/until';
import { createSession, type Session } from './session';
import { savedSummaryFault } from './summary-shape';
import { TEST_CALLER } from '../../../testing/callers';

describe('savedSummaryFault', () => {
  let core: Session | null = null;
  afterEach(async () => {
    await core?.close();
    core = null;
  });

  it("finds nothing wrong with what the app saves, every list filled: the demo's hosts, loops, fleet, drills, a drill run", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-saved-summary-'));
    core = createSession({ configPath: join(dir, 'config.yaml'), dataDir: join(dir, 'data'), shell: 'serve', pollMs: 60_000 });
    await core.start();
    await core.handlers['demo.start']({}, TEST_CALLER);
    const summary = async (): Promise<Summary> => SummarySchema.parse(await core?.handlers['state.summary']({}, TEST_CALLER));
    await until(async () => {
      const s = await summary();
      return !s.reading && s.capacity.length > 0 && s.loops.some((l) => l.cycles.length > 0);
    }, 60_000, "the demo's first read");
    const s = await summary();
    expect(s.hosts.length).toBeGreaterThan(0);
    expect(s.drills.length).toBeGreaterThan(0);
    const run = {
      id: 'run-1',
      drill: s.drills[0]?.name ?? 'drill',
      host: s.drills[0]?.host ?? 'runner',
      args: { mode: 'graceful' },
      user: 'ops',
      startedAt: '2026-11-29T07:00:00.000Z',
      endedAt: '2026-11-29T07:01:00.000Z',
      rc: 0,
      status: 'ok' as const,
      override: false,
      logPath: '~/.loopdeck/drills/run-1/output.log',
      durationMs: 60_000,
    };
    const full = SummarySchema.parse({
      ...s,
      drillRuns: [run],
      problems: [{ source: '/r/x.rc', line: 3, message: 'bad line' }],
      lastReviewedAt: '2026-11-29T06:00:00.000Z',
    });
    expect(savedSummaryFault(full)).toBeNull();
    expect(savedSummaryFault(JSON.parse(JSON.stringify(full)))).toBeNull();
    // The demo seeds a month of history first (~5 s of CPU): minutes on a busy machine, not a hang.
  }, 120_000);
});
