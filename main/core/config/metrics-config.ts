import { isIP } from 'node:net';
import * as z from 'zod';

/** Where the exporter listens unless the config says otherwise (Prometheus's usual exporter range). */
export const DEFAULT_METRICS_LISTEN = '127.0.0.1:9464';

/** A parsed `metrics.listen`: the address to bind and its port. */
export interface ListenAddress {
  readonly host: string;
  readonly port: number;
  readonly loopback: boolean;
}

/** Parse `host:port` (`[v6]:port` for IPv6); null when it is not one. */
export function parseListen(text: string): ListenAddress | null {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]\s]+)):(\d{1,5})$/.exec(text.trim());
  if (!m) return null;
  const host = m[1] ?? m[2] ?? '';
  const port = Number(m[3]);
  if (port < 1 || port > 65535) return null;
  if (m[1] !== undefined && isIP(host) !== 6) return null;
  return { host, port, loopback: isLoopback(host) };
}

/** Loopback only by name or address: any other host name may resolve to a public interface. */
function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}

/**
 * `metrics:` — the Prometheus exporter. It has no token (Prometheus scrapes without one), so a
 * non-loopback address must be asked for twice: written in `listen` and confirmed by `exposed`.
 */
export const MetricsConfigSchema = z
  .object({
    listen: z
      .string()
      .default(DEFAULT_METRICS_LISTEN)
      .refine((text) => parseListen(text) !== null, {
        message: 'expected "host:port" with a port from 1 to 65535, e.g. "127.0.0.1:9464" (IPv6: "[::1]:9464")',
      }),
    /** Allow a non-loopback `listen`: anyone who can reach it reads the loops' state. */
    exposed: z.boolean().default(false),
  })
  .strict()
  .superRefine((cfg, ctx) => {
    const address = parseListen(cfg.listen);
    if (address && !address.loopback && !cfg.exposed) {
      ctx.addIssue({
        code: 'custom',
        path: ['listen'],
        message: `${JSON.stringify(cfg.listen)} is not a loopback address: /metrics has no token, so anyone who can reach it reads the loops' state. Use "127.0.0.1:<port>", or add "exposed: true" to metrics to mean it.`,
      });
    }
  });

/** The validated `metrics:` section. */
export type MetricsConfig = z.infer<typeof MetricsConfigSchema>;
