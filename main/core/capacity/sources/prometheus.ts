import parsePrometheusTextFormat from 'parse-prometheus-text-format';

/** One Prometheus sample, flattened: family name, labels, numeric value. */
export interface PromPoint {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/**
 * Parse Prometheus text with `parse-prometheus-text-format`. The library is lenient (HTML parses
 * to nothing, prose to odd families), so anything without one numeric sample line is refused.
 */
export function parsePrometheus(text: string): PromPoint[] {
  if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[^}]*\})?\s+[-+0-9.eEaNIinf]+/m.test(text)) throw new Error('not Prometheus text (no sample lines)');
  const points: PromPoint[] = [];
  for (const family of parsePrometheusTextFormat(text)) {
    for (const m of family.metrics) {
      if (m.value === undefined) continue;
      const value = Number(m.value);
      if (!Number.isNaN(value)) points.push({ name: family.name, labels: m.labels ?? {}, value });
    }
  }
  if (points.length === 0) throw new Error('not Prometheus text (no numeric samples)');
  return points;
}

/** The value of an unlabelled (or first) sample of `name`, or null. */
export function gauge(points: readonly PromPoint[], name: string): number | null {
  return points.find((p) => p.name === name)?.value ?? null;
}
