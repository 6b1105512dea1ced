/** Units a config duration may use, in milliseconds. */
const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;

/**
 * Parse a duration like `10s`, `30m`, `2h` or `1h30m` into milliseconds; null when it is not one.
 * Compound forms are accepted because operators write `1h30m` for a grace period.
 */
export function parseDuration(text: string): number | null {
  const parts = text.trim().match(/\d+(?:\.\d+)?(?:ms|s|m|h|d)/g);
  if (!parts || parts.join('') !== text.trim()) return null;
  let total = 0;
  for (const part of parts) {
    const m = DURATION.exec(part);
    if (!m) return null;
    total += Number(m[1]) * (UNITS[m[2] ?? ''] ?? Number.NaN);
  }
  return Number.isFinite(total) && total > 0 ? Math.round(total) : null;
}

/** Format milliseconds as a short duration (`2h`, `1h30m`, `45s`) for messages and the UI. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const parts: string[] = [];
  let rest = Math.round(ms / 1000);
  for (const [unit, size] of [['d', 86_400], ['h', 3600], ['m', 60], ['s', 1]] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.join('');
}
