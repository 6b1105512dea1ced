import { describe, expect, it } from 'vitest';
import type { Capacity } from './domain';
import { DEFAULT_INCIDENT_LIMITS, errorBurst, fleetIncidents, heapHigh, isServerFailure, serverFailures, shedThresholdFinding } from './fleet-incidents';
import { buildReviewSummary, renderReviewMarkdown } from './review-summary';

const WINDOW = 15 * 60_000;
const POLLED = '2026-05-22T14:00:00.000Z';

/** A gateway as its `/v1/ops/status` read on the R40 afternoon: threshold 80, nothing shed. */
function gateway(over: Partial<Capacity> = {}): Capacity {
  return {
    proxy: 'gateway', kind: 'gateway', host: 'gateway', up: true, since: '2026-05-22T09:00:00.000Z',
    slotsTotal: null, slotsBusy: null, inflight: 12, queued: null, nCtx: null, models: [],
    shedThreshold: 80, highWater: 15, totalShed: 0, heapUtilizationPct: 41.5, heapSizeLimitMb: 4144,
    errorShare: { errors: 0, requests: 900, windowMs: WINDOW }, missing: [], error: null, polledAt: POLLED, ...over,
  };
}

/** A crossbar backend with `slots` parallel slots, idle. */
function backend(host: string, slots: number, over: Partial<Capacity> = {}): Capacity {
  return {
    proxy: 'crossbar', kind: 'crossbar', host, up: true, since: null, slotsTotal: slots, slotsBusy: 0, inflight: 0, queued: 0, nCtx: 32768, models: [],
    shedThreshold: null, highWater: null, totalShed: null, missing: [], error: null, polledAt: POLLED, ...over,
  };
}

const kinds = (caps: readonly Capacity[]) => fleetIncidents(caps).map((i) => `${i.proxy}/${i.host} ${i.kind}`);

describe('which statuses are server failures', () => {
  it('counts 5xx and words such as shed, not 4xx', () => {
    expect(['500', '502', '503', '504', 'shed', 'other'].every(isServerFailure)).toBe(true);
    expect(['400', '404', '429', '499'].some(isServerFailure)).toBe(false);
    expect(serverFailures({ '400': 7, '499': 3, '504': 5, shed: 2 })).toBe(7);
  });
});

describe('error burst', () => {
  it('fires when the share of server errors over the window is above 5 % of at least 20 requests', () => {
    // The R40 k6 run: a 22.72 % error burst.
    const burst = gateway({ errorShare: { errors: 227, requests: 999, windowMs: WINDOW } });
    expect(errorBurst(burst)?.pct).toBeCloseTo(22.72, 2);
    const [inc] = fleetIncidents([burst]).filter((i) => i.kind === 'error-burst');
    expect(inc?.detail).toBe('227 of 999 requests (22.7 %) failed with a server error in the last 15 min; the threshold is 5 %');
  });

  it('does not fire just at or below the threshold', () => {
    expect(errorBurst(gateway({ errorShare: { errors: 50, requests: 1000, windowMs: WINDOW } }))).toBeNull();
    expect(errorBurst(gateway({ errorShare: { errors: 49, requests: 1000, windowMs: WINDOW } }))).toBeNull();
    expect(errorBurst(gateway({ errorShare: { errors: 51, requests: 1000, windowMs: WINDOW } }))).not.toBeNull();
  });

  it('does not fire on too few requests: 1 error of 2 is not a burst', () => {
    expect(errorBurst(gateway({ errorShare: { errors: 1, requests: 2, windowMs: WINDOW } }))).toBeNull();
    expect(errorBurst(gateway({ errorShare: { errors: 19, requests: 19, windowMs: WINDOW } }))).toBeNull();
    expect(errorBurst(gateway({ errorShare: { errors: 2, requests: 20, windowMs: WINDOW } }))).not.toBeNull();
  });

  it('takes the proxy\'s own thresholds, and none without counters', () => {
    const limits = { ...DEFAULT_INCIDENT_LIMITS, errorPct: 25, errorMinRequests: 5 };
    expect(errorBurst(gateway({ limits, errorShare: { errors: 227, requests: 999, windowMs: WINDOW } }))).toBeNull();
    expect(errorBurst(gateway({ limits, errorShare: { errors: 2, requests: 5, windowMs: WINDOW } }))).not.toBeNull();
    expect(errorBurst(gateway({ errorShare: null }))).toBeNull();
    expect(errorBurst(gateway({ errorShare: undefined }))).toBeNull();
  });
});

describe('shed threshold above the capacity shown', () => {
  it('fires for threshold 80 against a linked fleet of 12 slots (over 2 × 12)', () => {
    const gw = gateway({ limits: { ...DEFAULT_INCIDENT_LIMITS, fleet: 'crossbar' } });
    const fleet = [backend('gpu-a', 4), backend('gpu-b', 4), backend('gpu-c', 4)];
    expect(shedThresholdFinding(gw, [gw, ...fleet])).toBe(
      'shed threshold 80 is over 2× the 12 slots of fleet crossbar: load shedding cannot engage before the backend fails; nothing has been shed. Lower it to about 12.',
    );
    expect(kinds([gw, ...fleet])).toEqual(['gateway/gateway shed-threshold']);
    // 80 against 40 slots is exactly 2×: not above it.
    expect(shedThresholdFinding(gw, [gw, backend('big', 40)])).toBeNull();
  });

  it('fires against the high-water mark only while the gateway fails requests', () => {
    const failing = gateway({ highWater: 15, errorShare: { errors: 3, requests: 900, windowMs: WINDOW } });
    expect(shedThresholdFinding(failing, [failing])).toMatch(/^shed threshold 80 is over 2× its in-flight high-water mark of 15, with server errors in the last 15 min/);
    // A quiet gateway's high-water mark is its load, not its capacity.
    expect(shedThresholdFinding(gateway({ highWater: 15 }), [])).toBeNull();
    // Threshold not far above: 80 ≤ 2 × 45.
    expect(shedThresholdFinding(gateway({ highWater: 45, errorShare: { errors: 3, requests: 900, windowMs: WINDOW } }), [])).toBeNull();
  });

  it('takes the configured factor, and says nothing without a threshold', () => {
    const failing = { highWater: 15, errorShare: { errors: 3, requests: 900, windowMs: WINDOW } };
    expect(shedThresholdFinding(gateway({ ...failing, limits: { ...DEFAULT_INCIDENT_LIMITS, shedFactor: 6 } }), [])).toBeNull();
    expect(shedThresholdFinding(gateway({ ...failing, shedThreshold: null }), [])).toBeNull();
  });
});

describe('gateway heap', () => {
  it('fires above 85 % of its limit, naming the limit', () => {
    expect(heapHigh(gateway({ heapUtilizationPct: 91.26 }))).toBe('heap 91.3 % of its 4,144 MB limit (above 85 %): it risks running out of memory');
    expect(kinds([gateway({ heapUtilizationPct: 91.26 })])).toEqual(['gateway/gateway heap']);
  });

  it('does not fire at or below it, or when the gateway does not say', () => {
    expect(heapHigh(gateway({ heapUtilizationPct: 85 }))).toBeNull();
    expect(heapHigh(gateway({ heapUtilizationPct: 41.5 }))).toBeNull();
    expect(heapHigh(gateway({ heapUtilizationPct: null }))).toBeNull();
    expect(heapHigh(gateway({ heapUtilizationPct: 70, limits: { ...DEFAULT_INCIDENT_LIMITS, heapPct: 60 } }))).not.toBeNull();
  });
});

describe('every kind on the Review and in the Markdown', () => {
  it('lists down first, then error bursts, saturation, heap and shed findings', () => {
    const gw = gateway({ heapUtilizationPct: 93, highWater: 15, errorShare: { errors: 120, requests: 600, windowMs: WINDOW } });
    const caps = [gw, backend('gpu-a', 4, { slotsBusy: 4 }), backend('gpu-b', 4, { up: false, error: 'refused' })];
    expect(kinds(caps)).toEqual(['crossbar/gpu-b down', 'gateway/gateway error-burst', 'crossbar/gpu-a saturated', 'gateway/gateway heap', 'gateway/gateway shed-threshold']);
    const input = { hosts: [], loops: [], findings: [], backlog: [], tasks: [], prs: [], drillRuns: [], capacity: caps, lastReviewedAt: null };
    const md = renderReviewMarkdown(buildReviewSummary(input, { now: Date.parse(POLLED) }));
    const section = md.slice(md.indexOf('## Fleet incidents'));
    expect(section.split('\n').filter((l) => l.startsWith('- '))).toEqual([
      '- **gpu-b** via crossbar — down: refused',
      '- **gateway** via gateway — error burst: 120 of 600 requests (20 %) failed with a server error in the last 15 min; the threshold is 5 %',
      '- **gpu-a** via crossbar — saturated: 4/4 slots busy',
      '- **gateway** via gateway — heap near its limit: heap 93 % of its 4,144 MB limit (above 85 %): it risks running out of memory',
      expect.stringMatching(/^- \*\*gateway\*\* via gateway — shed threshold above capacity: shed threshold 80 is over 2× its in-flight high-water mark of 15/),
    ]);
  });
});
