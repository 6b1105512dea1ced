// What a Prometheus answer may bring into the console. Its `instance` and `model` label values
// become host and model names, printed by the console, the CLI and notices; the exposition format
// lets a scraped server put any UTF-8 in them (`\n` escaped, ESC, NUL and U+202E raw). A name
// with a control character (a terminal escape, a newline) or a bidi control (which reorders what
// the operator reads) is refused rather than shown, and named escaped in the proxy's error. A
// value no server can report (NaN, ±Inf, a negative count, 1e308 requests) counts as missing.
import { escapeUnsafe, hasUnsafe } from '../../../../shared/unsafe-text';
import { clip } from '../limits';

/**
 * Requests one server holds in flight or queued at most: llama.cpp's parallel slots are rarely
 * past 64 and its queue is bounded by open connections; past this it is not a count.
 */
export const MAX_PROM_REQUESTS = 100_000;
/** Tokens a second one server generates at most: a large batch on a large GPU is a few thousand. */
export const MAX_PROM_TOKENS_PER_SECOND = 1_000_000;
/** Refused label values named in one message; the rest are counted. */
export const MAX_REFUSED_NAMED = 5;

/** Whether a label value holds a character that must not reach a screen as it is (shared/unsafe-text). */
export function unsafeLabel(value: string): boolean {
  return hasUnsafe(value);
}

/** A label value as a printable quoted literal (`"gpu\x1b[31m"`, `"a\u202eb"`), cut to MAX_TEXT characters first. */
export function quoteLabel(value: string): string {
  return `"${escapeUnsafe(clip(value).replace(/["\\]/g, '\\$&'))}"`;
}

/** The first unsafe `instance` or `model` label of a series, as `instance "…"`, or null when both are fine. */
export function refusedLabel(metric: Readonly<Record<string, string>>): string | null {
  for (const name of ['instance', 'model'] as const) {
    const v = metric[name];
    if (v !== undefined && unsafeLabel(v)) return `${name} ${quoteLabel(v)}`;
  }
  return null;
}

/** `left out 2 series whose labels hold a control or bidi character: instance "…", model "…"`, at most MAX_REFUSED_NAMED named. */
export function refusedText(refused: readonly string[]): string {
  const named = refused.slice(0, MAX_REFUSED_NAMED).join(', ');
  const more = refused.length > MAX_REFUSED_NAMED ? `, and ${refused.length - MAX_REFUSED_NAMED} more` : '';
  return `left out ${refused.length} series whose labels hold a control or bidi character (refused as names): ${named}${more}`;
}

/** A figure read from a Prometheus value, or why it is not one. */
export type Checked = { readonly ok: true; readonly value: number } | { readonly ok: false; readonly why: string };

/**
 * A Prometheus value string (`"3"`, `"NaN"`, `"+Inf"`, `"1e+308"`) as a figure in [0, max], or
 * why not, in words: `NaN`, `+Inf`, `-3 is negative`, `1e+308 is past 100000`.
 */
export function checkFigure(raw: string, max: number): Checked {
  // Number('') is 0 and Number('+Inf') NaN: neither is what Prometheus meant.
  const v = raw === '+Inf' || raw === 'Inf' ? Infinity : raw === '-Inf' ? -Infinity : raw.trim() === '' ? NaN : Number(raw);
  if (Number.isNaN(v)) return { ok: false, why: `${clip(raw, 32)} is not a number` };
  if (!Number.isFinite(v)) return { ok: false, why: `${raw} is not finite` };
  if (v < 0) return { ok: false, why: `${raw} is negative` };
  if (v > max) return { ok: false, why: `${raw} is past ${max}` };
  return { ok: true, value: v };
}
