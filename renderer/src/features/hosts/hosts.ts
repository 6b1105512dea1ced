import type { HostConnState, HostState } from '../../../../shared/domain';
import { formatClock } from '../../ui/format';

/** How healthy a connection state is, for its dot colour. */
export const HOST_HEALTH: Readonly<Record<HostConnState, 'good' | 'busy' | 'warn' | 'bad'>> = {
  connected: 'good',
  connecting: 'busy',
  reconnecting: 'busy',
  untrusted: 'warn',
  'hostkey-mismatch': 'bad',
  'auth-failed': 'bad',
  unreachable: 'bad',
};

/** The word shown next to a host's dot. */
export const HOST_STATE_LABEL: Readonly<Record<HostConnState, string>> = {
  connected: 'connected',
  connecting: 'connecting…',
  reconnecting: 'reconnecting',
  untrusted: 'untrusted host key',
  'hostkey-mismatch': 'host key changed',
  'auth-failed': 'authentication failed',
  unreachable: 'unreachable',
};

/** `since 06:12 · attempt 3` while a host is retrying (reconnecting or unreachable); null otherwise. */
export function retryText(host: HostState, timeZone?: string): string | null {
  if (host.state !== 'reconnecting' && host.state !== 'unreachable') return null;
  const parts: string[] = [];
  const since = formatClock(host.since, timeZone);
  if (since) parts.push(`since ${since}`);
  if (host.attempt > 0) parts.push(`attempt ${host.attempt}`);
  return parts.length > 0 ? parts.join(' · ') : null;
}

/** The command that prints a host's own ed25519 key fingerprint, to compare before trusting. */
export const HOST_KEY_CHECK_COMMAND = 'ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub';
