import type { IncomingMessage } from 'node:http';
import { isIPv4 } from 'node:net';
import type { ServeAuthConfig } from '../../core/config/serve-config';
import type { Access } from './access';
import { noRoleMessage, roleOf } from './roles';

/** The longest user or groups header taken: a proxy sends a name, not a page. */
const MAX_HEADER_CHARS = 4096;

/** `::ffff:127.0.0.1` (an IPv4 peer of a dual-stack socket) as `127.0.0.1`. */
function plainAddress(address: string): string {
  const m = /^::ffff:(.+)$/i.exec(address);
  return m?.[1] && isIPv4(m[1]) ? m[1] : address;
}

/**
 * One header's value, or null when absent; several copies are refused (which one would be the
 * proxy's?). Read from `headersDistinct`: `headers` joins copies of most headers into one
 * `bob, alice` (and keeps only the first of a few), which would hide them.
 */
function single(req: IncomingMessage, name: string): string | null | 'many' {
  const values = req.headersDistinct[name];
  if (values === undefined || values.length === 0) return null;
  return values.length === 1 ? (values[0] ?? null) : 'many';
}

/**
 * A reverse proxy in front has signed the user in and names them in `proxyHeader` (Grafana's
 * `auth.proxy`): taken only from `trustedProxies`, refused from any other address, since anyone
 * who can reach serve directly could send it. Groups come from `groupsHeader` when set.
 */
export function proxyAccess(auth: ServeAuthConfig & { proxyHeader: string }): Access {
  const trusted = new Set((auth.trustedProxies ?? []).map(plainAddress));
  const header = auth.proxyHeader.toLowerCase();
  const groupsHeader = auth.groupsHeader?.toLowerCase();
  return {
    kind: 'proxy',
    check(req) {
      const from = plainAddress(req.socket.remoteAddress ?? '');
      if (!trusted.has(from)) {
        return { status: 403, message: `Loopdeck takes ${auth.proxyHeader} only from serve.auth.trustedProxies (${[...trusted].join(', ')}); this request came from ${from || 'an unknown address'}.` };
      }
      const user = single(req, header);
      if (user === 'many') return { status: 400, message: `The request has more than one ${auth.proxyHeader} header.` };
      if (user === null || user.trim() === '') return { status: 401, message: `The proxy in front of Loopdeck did not name a user in ${auth.proxyHeader}: is it signing people in?` };
      if (user.length > MAX_HEADER_CHARS) return { status: 400, message: `${auth.proxyHeader} is longer than ${MAX_HEADER_CHARS} characters.` };
      const rawGroups = groupsHeader ? single(req, groupsHeader) : null;
      if (rawGroups === 'many') return { status: 400, message: `The request has more than one ${auth.groupsHeader ?? ''} header.` };
      if (rawGroups !== null && rawGroups.length > MAX_HEADER_CHARS) return { status: 400, message: `${auth.groupsHeader ?? ''} is longer than ${MAX_HEADER_CHARS} characters.` };
      const groups = (rawGroups ?? '').split(',').map((g) => g.trim()).filter(Boolean);
      const name = user.trim();
      const role = roleOf(auth.roles, name, groups);
      if (role === null) return { status: 403, message: noRoleMessage(name, groups) };
      return { caller: { user: name, role, via: 'proxy' }, ambient: true };
    },
    route: () => false,
  };
}
