import * as z from 'zod';
import { parseDuration } from './duration';
import { secretSource } from './secret';

// Value shapes more than one config section spells the same way.

/** A duration written as `10s`, `30m`, `2h`, `1h30m`; parsed to milliseconds. */
export const Duration = z.string().transform((text, ctx) => {
  const ms = parseDuration(text);
  if (ms === null) {
    ctx.addIssue({ code: 'custom', message: `expected a duration like "30s", "10m" or "2h", got ${JSON.stringify(text)}` });
    return z.NEVER;
  }
  return ms;
});

/** A string with something in it once trimmed. */
export const NonEmpty = z.string().trim().min(1, 'expected a non-empty string');

/** A secret: `env:NAME` (read from that variable when used; see secret.ts) or the value itself. */
export const Secret = NonEmpty.refine((v) => secretSource(v) !== null, { message: 'expected "env:NAME" with NAME an environment variable name, e.g. "env:LOOPDECK_OIDC_SECRET"' });

/** A name of a host, loop, proxy or drill: letters, digits, `.`, `_` or `-`. */
export const Name = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'expected a name of letters, digits, ".", "_" or "-"');

/** An IANA time zone that this Node's Intl knows. */
export const TimeZone = z.string().refine(
  (tz) => {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: tz });
      return true;
    } catch {
      return false;
    }
  },
  { message: 'expected an IANA time zone such as "America/New_York"' },
);

/** Loopback only by name or address, as `metrics.listen` decides it. */
export const loopbackHost = (host: string): boolean => host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);

/**
 * A URL a secret is sent to (a token, a signed body): https, or plain http on this machine's
 * loopback only, so the secret does not cross a network in clear. `what` names it in the error.
 */
export const httpsOrLoopback = (what: string, examples: string, secret: string) =>
  z.string().superRefine((text, ctx) => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      ctx.addIssue({ code: 'custom', message: `expected ${what} such as ${examples}, got ${JSON.stringify(text)}` });
      return;
    }
    if (url.protocol === 'https:') return;
    if (url.protocol === 'http:' && loopbackHost(url.hostname)) return;
    ctx.addIssue({
      code: 'custom',
      message: `expected an https:// URL (plain http:// only on loopback: 127.0.0.1, ::1, localhost), got ${JSON.stringify(text)}: ${secret} would cross the network in clear`,
    });
  });
