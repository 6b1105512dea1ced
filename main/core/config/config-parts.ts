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
