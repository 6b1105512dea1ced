import { createHash } from 'node:crypto';
import type { Problem } from '../../../../shared/domain';
import { readSecret } from '../../config/secret';
import type { WEBHOOK_FORMATS } from '../../config/schema';
import type { NotifyConfig } from '../notify-config';

/** A payload shape: `standard` (Standard Webhooks), `cloudevents` (CloudEvents 1.0 structured JSON), `alertmanager` (its webhook receiver's body). */
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** A configured webhook, its secret read: what the sink posts to. */
export interface WebhookTarget {
  /** `notify.webhooks.<i>`: the config key, for messages. */
  readonly key: string;
  readonly url: string;
  /** The URL's host (and port): what messages name (the path or query may hold a token). */
  readonly host: string;
  readonly format: WebhookFormat;
  /** The signing key (the secret's base64 decoded), or null for an unsigned format without a secret. */
  readonly signingKey: Buffer | null;
  /** Stable identity for the store: a hash of the format and the URL. */
  readonly id: string;
}

/** The prefix Standard Webhooks puts before a base64 secret; its libraries accept the secret with or without it. */
export const SECRET_PREFIX = 'whsec_';

/**
 * The key a Standard Webhooks secret stands for: `whsec_` (optional) then base64 of 24 to 64
 * random bytes (the spec's range; fewer than 24 is refused as too weak to sign with). Null when
 * it is not base64.
 */
export function signingKeyOf(secret: string): Buffer | null {
  const b64 = (secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret).trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 !== 0) return null;
  const key = Buffer.from(b64, 'base64');
  return key.length >= 24 && key.length <= 64 ? key : null;
}

/** The webhook-id of a notice for a webhook: the same for every attempt and every restart, so a receiver dedupes by it. */
export function messageId(noticeKey: string, target: Pick<WebhookTarget, 'id'>): string {
  return `msg_${createHash('sha256').update(`${target.id}\n${noticeKey}`).digest('base64url').slice(0, 27)}`;
}

/**
 * The configured webhooks with their secrets read from the environment, and a problem (naming
 * `notify.webhooks.<i>.secret` and the variable, never the value) for each one that cannot sign:
 * that webhook is left out until the config or the environment is fixed and Loopdeck restarted.
 */
export function webhookTargets(notify: NotifyConfig, env: NodeJS.ProcessEnv): { targets: WebhookTarget[]; problems: Problem[] } {
  const targets: WebhookTarget[] = [];
  const problems: Problem[] = [];
  for (const [i, w] of (notify.webhooks ?? []).entries()) {
    const key = `notify.webhooks.${i}`;
    let signingKey: Buffer | null = null;
    if (w.secret !== undefined) {
      const secret = readSecret(`${key}.secret`, w.secret, env);
      if ('error' in secret) {
        problems.push({ source: `${key}.secret`, line: null, message: `${secret.error}; nothing is posted to this webhook until then.` });
        continue;
      }
      signingKey = signingKeyOf(secret.value);
      if (signingKey === null) {
        problems.push({
          source: `${key}.secret`,
          line: null,
          message: `${key}.secret is not a Standard Webhooks secret: expected "whsec_" and the base64 of 24 to 64 random bytes (e.g. "whsec_$(openssl rand -base64 32)"); nothing is posted to this webhook until then.`,
        });
        continue;
      }
    }
    const url = new URL(w.url);
    const id = createHash('sha256').update(`${w.format} ${w.url}`).digest('hex').slice(0, 16);
    const same = targets.find((t) => t.id === id);
    if (same) {
      problems.push({ source: key, line: null, message: `${key} posts to the same URL in the same format as ${same.key}; it is left out (each notice is posted there once).` });
      continue;
    }
    targets.push({ key, url: w.url, host: url.host, format: w.format, signingKey, id });
  }
  return { targets, problems };
}
