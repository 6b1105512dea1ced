import * as z from 'zod';

// `costs:` (issue "Night against night", item 5): what a night, a phase or a PR cost. Proxies priced
// by the token (an API behind a routing proxy) and inference hosts priced by the hour (self-hosted),
// in one currency, and an optional monthly budget whose pace is noticed. The pricing itself is
// main/core/costs/night-cost.ts; this is only what may be written.

/** A price: a number of 0 or more (`what` says per what, in the error). */
const price = (what: string) =>
  z
    .number({ error: `expected a price ${what}, a number such as 0.6` })
    .min(0, `expected a price ${what} of 0 or more`);

/**
 * One model's prices per million tokens. The proxies' accounting rows carry one token count (input
 * and output together), so `tokens` — one blended price — is what prices them; `input` and `output`
 * are taken as the provider lists them, and used as night-cost.ts explains.
 */
export const ModelPriceSchema = z
  .object({
    input: price('per million input tokens').optional(),
    output: price('per million output tokens').optional(),
    tokens: price('per million tokens (input and output together)').optional(),
  })
  .strict()
  .refine((p) => p.input !== undefined || p.output !== undefined || p.tokens !== undefined, {
    message: 'expected at least one of tokens, input or output (a price per million tokens), e.g. { tokens: 0.6 }',
  });
/** One model's prices per million tokens. */
export type ModelPrice = z.infer<typeof ModelPriceSchema>;

/** A record key with something in it. */
const Key = (what: string) => z.string().min(1, `expected ${what}, not an empty key`);

/**
 * `costs:` — prices and a budget. `models` is keyed by the model name as the proxy's usage rows
 * spell it; `hosts` by `proxy/host` (one proxy's host) or a host name alone (that host on any proxy;
 * a llama-server, vllm or gateway proxy is one host named as the proxy), with a price per hour.
 */
export const CostsConfigSchema = z
  .object({
    /** What the prices are in, shown as written beside every amount (default USD). */
    currency: z.string().trim().min(1, 'expected a currency such as "USD" or "EUR"').max(12, 'expected a currency of at most 12 characters, such as "USD"').default('USD'),
    /** Price per million tokens, by model name. */
    models: z.record(Key('a model name'), ModelPriceSchema).default({}),
    /** Price per hour, by `proxy/host` or host name. */
    hosts: z.record(Key('"proxy/host" or a host name'), price('per hour')).default({}),
    /** A monthly budget: a night whose pace would pass it raises a notice (rule `budget`). */
    budget: z.object({ monthly: price('per month') }).strict().optional(),
  })
  .strict();
/** The validated `costs:` section. */
export type CostsConfig = z.infer<typeof CostsConfigSchema>;

/**
 * The `costs.hosts` keys naming a proxy that is not declared (`crossbar/gpu-1` without a proxy
 * `crossbar`), each with its message: a typo there would price nothing, silently.
 */
export function undeclaredCostProxies(costs: CostsConfig, proxies: readonly string[]): { key: string; message: string }[] {
  const out: { key: string; message: string }[] = [];
  for (const key of Object.keys(costs.hosts)) {
    const slash = key.indexOf('/');
    if (slash < 0) continue;
    const proxy = key.slice(0, slash);
    if (proxies.includes(proxy)) continue;
    out.push({
      key,
      message: `proxy ${JSON.stringify(proxy)} is not declared under proxies (declared: ${proxies.length ? proxies.join(', ') : 'none'}); write "proxy/host", or a host name alone for that host on any proxy`,
    });
  }
  return out;
}
