/** How much free room a pre-flight asks of a runner's folders: bytes, or a percentage of the filesystem. */
export type DiskThreshold = { readonly kind: 'bytes'; readonly bytes: number } | { readonly kind: 'percent'; readonly percent: number };

// Binary units, as `df -k` counts: 1KB = 1024 bytes. Operators write `2GB` and mean "about two gigabytes".
const UNITS: Readonly<Record<string, number>> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4 };

/** Parse `2GB`, `500MB`, `10%` (free at least that share of the filesystem); null when it is neither. */
export function parseDiskThreshold(text: string): DiskThreshold | null {
  const m = /^(\d+(?:\.\d+)?)\s*(B|KB|MB|GB|TB|%)$/i.exec(text.trim());
  if (!m) return null;
  const n = Number(m[1]);
  const unit = (m[2] ?? '').toUpperCase();
  if (unit === '%') return n > 0 && n < 100 ? { kind: 'percent', percent: n } : null;
  const bytes = Math.round(n * (UNITS[unit] ?? Number.NaN));
  return Number.isFinite(bytes) && bytes > 0 ? { kind: 'bytes', bytes } : null;
}

/** Bytes for a person: `1.5 GB`, `640 MB`, `12 KB` (binary units, as the threshold is written). */
export function formatBytes(bytes: number): string {
  for (const [unit, size] of [['TB', 1024 ** 4], ['GB', 1024 ** 3], ['MB', 1024 ** 2], ['KB', 1024]] as const) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`;
  }
  return `${bytes} B`;
}

/** A threshold for a person: `2 GB`, `10 %`. */
export function formatThreshold(t: DiskThreshold): string {
  return t.kind === 'bytes' ? formatBytes(t.bytes) : `${t.percent} %`;
}
