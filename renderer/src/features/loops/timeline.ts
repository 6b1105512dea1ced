import type { Cycle, Phase } from '../../../../shared/domain';
import { newestFirst } from '../../ui/format';

/** How many of a loop's most recent cycles the timeline draws. */
export const TIMELINE_CYCLES = 14;

/** One phase drawn as a bar: from its start to its end (running phases end at now). */
export interface TimelineBar {
  readonly date: string;
  readonly phase: Phase;
  readonly lane: number;
  readonly start: number;
  readonly end: number;
  readonly x: number;
  readonly width: number;
  /** Running: the bar is open-ended and striped. */
  readonly running: boolean;
}

/** A local-midnight tick on the time axis. */
export interface DayTick {
  readonly t: number;
  readonly x: number;
  readonly label: string;
  /** Some labels are skipped when days are narrow; the tick line stays. */
  readonly showLabel: boolean;
}

/** Everything the timeline SVG needs, in pixels of the plot area. */
export interface TimelineLayout {
  readonly lanes: readonly string[];
  readonly bars: readonly TimelineBar[];
  readonly ticks: readonly DayTick[];
  readonly start: number;
  readonly end: number;
  readonly nowX: number;
}

const MIN_BAR = 3;

/** Phase names in lane order: the newest cycle's order, then any others as first met. */
export function timelineLanes(cycles: readonly Cycle[]): string[] {
  const lanes: string[] = [];
  for (const c of newestFirst(cycles)) for (const p of c.phases) if (!lanes.includes(p.name)) lanes.push(p.name);
  return lanes;
}

function time(iso: string | null): number | null {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isFinite(t) ? t : null;
}

/** Local midnights after `start` up to `end`, with `Sun 23` labels (thinned when days are narrow). */
export function dayTicks(start: number, end: number, scale: (t: number) => number): DayTick[] {
  const d = new Date(start);
  d.setHours(0, 0, 0, 0);
  if (d.getTime() < start) d.setDate(d.getDate() + 1);
  const fmt = new Intl.DateTimeFormat('en-GB', { weekday: 'short', day: 'numeric' });
  const raw: { t: number; label: string }[] = [];
  while (d.getTime() <= end) {
    raw.push({ t: d.getTime(), label: fmt.format(d) });
    d.setDate(d.getDate() + 1);
  }
  const dayPx = raw.length > 1 ? scale(raw[1]!.t) - scale(raw[0]!.t) : Infinity;
  const every = dayPx >= 46 ? 1 : dayPx >= 23 ? 2 : 7;
  return raw.map((r, i) => ({ t: r.t, x: scale(r.t), label: r.label, showLabel: (raw.length - 1 - i) % every === 0 }));
}

/**
 * Lay out a loop's last 14 cycles over a real time scale from the earliest start to `now`, one
 * lane per phase. Null when no phase in them has a time yet.
 */
export function timelineLayout(cycles: readonly Cycle[], now: number, width: number): TimelineLayout | null {
  const recent = newestFirst(cycles).slice(0, TIMELINE_CYCLES);
  const lanes = timelineLanes(recent);
  const spans: { date: string; phase: Phase; lane: number; start: number; end: number; running: boolean }[] = [];
  for (const c of recent) {
    for (const p of c.phases) {
      const a = time(p.startedAt);
      const b = time(p.endedAt);
      const running = p.status === 'running';
      const start = a ?? b;
      if (start === null) continue;
      const end = running ? Math.max(now, start) : (b ?? start);
      spans.push({ date: c.date, phase: p, lane: lanes.indexOf(p.name), start, end: Math.max(end, start), running });
    }
  }
  if (spans.length === 0) return null;
  const start = Math.min(...spans.map((s) => s.start));
  const end = Math.max(now, ...spans.map((s) => s.end));
  const w = Math.max(1, width);
  const scale = (t: number) => (end === start ? 0 : ((t - start) / (end - start)) * w);
  const bars = spans.map((s) => {
    const x = scale(s.start);
    return { ...s, x, width: Math.max(MIN_BAR, scale(s.end) - x) };
  });
  return { lanes, bars, ticks: dayTicks(start, end, scale), start, end, nowX: scale(now) };
}
