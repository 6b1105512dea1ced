import { useEffect, useRef, useState } from 'react';
import type { HostState } from '../../../../shared/domain';
import { HOST_HEALTH, HOST_STATE_LABEL, retryText } from './hosts';
import { useDeck, useMay, useRoleNeeded } from '../../store';
import { RoleNote } from '../../ui/RoleNote';
import { TrustDialog } from './TrustDialog';
import { UnlockForm } from './UnlockForm';
import { UntrustControl } from './UntrustControl';

function HostItem({ host, onTrust, focused = false }: { host: HostState; onTrust: (fingerprint: string) => void; focused?: boolean }) {
  const health = HOST_HEALTH[host.state];
  const ref = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (focused) ref.current?.scrollIntoView({ block: 'nearest' });
  }, [focused]);
  const retry = retryText(host);
  const mismatch = host.state === 'hostkey-mismatch';
  const mayTrust = useMay('hosts.trust');
  const mayUntrust = useMay('hosts.untrust');
  const mayUnlock = useMay('hosts.unlock');
  return (
    <li ref={ref} className={`host host-health-${health}${focused ? ' host-focused' : ''}`} data-testid={`host-${host.name}`} data-state={host.state} aria-current={focused ? 'true' : undefined}>
      <div className="host-line">
        <span className={`dot health-${health}`} aria-hidden="true" />
        <span className="host-name">{host.name}</span>
        <span className="host-kind">{host.kind}</span>
      </div>
      <div className="host-body">
        <div className={`host-state state-${health}`}>{HOST_STATE_LABEL[host.state]}</div>
        {retry ? <div className="host-meta">{retry}</div> : null}
        {mismatch ? (
          <div className="host-alert" role="alert">
            <strong>Investigate before reconnecting.</strong>
            {host.error ? <p>{host.error}</p> : null}
            <p>
              A changed key can mean the host was reinstalled or its keys rotated, or that something is impersonating it.
              Only if the change is expected, remove the old key
              {host.trustedInLoopdeck ? (mayUntrust ? ' (Untrust, below)' : ' (an admin can Untrust it here)') : ' from known_hosts'}; Loopdeck then offers the new key to trust.
            </p>
          </div>
        ) : host.error ? (
          <div className={`host-error${health === 'bad' ? '' : ' quiet'}`}>{host.error}</div>
        ) : null}
        {host.state === 'untrusted' && host.fingerprint ? (
          <div className="host-trust">
            <code className="fingerprint" title="SHA256 fingerprint of the key the host presented">
              {host.fingerprint}
            </code>
            {mayTrust ? (
              <button
                type="button"
                className="small-button"
                data-testid={`trust-${host.name}`}
                onClick={() => host.fingerprint && onTrust(host.fingerprint)}
              >
                Trust this key…
              </button>
            ) : null}
          </div>
        ) : null}
        {host.needsPassphrase && mayUnlock ? <UnlockForm host={host.name} file={host.needsPassphrase} /> : null}
        {host.kind === 'ssh' && host.trustedInLoopdeck && mayUntrust ? <UntrustControl host={host.name} /> : null}
      </div>
    </li>
  );
}

/** The configured hosts: state, retry progress, last error, and what the operator can do about it (an admin: trust, untrust, unlock). */
export function HostList({ focus = null }: { focus?: string | null } = {}) {
  const hosts = useDeck((s) => s.hosts);
  // The fingerprint is captured when the dialog opens: the operator confirms the key they saw.
  const [trusting, setTrusting] = useState<{ host: string; fingerprint: string } | null>(null);
  // Trust, untrust and unlock all need the admin role: said once, and only where one would show.
  const keysNeed = useRoleNeeded('hosts.trust');
  if (hosts.length === 0) return <p className="muted small side-note">No hosts configured.</p>;
  const gap = hosts.some((h) => (h.state === 'untrusted' && h.fingerprint) || h.needsPassphrase || (h.kind === 'ssh' && h.trustedInLoopdeck));
  return (
    <>
      <ul className="hosts">
        {hosts.map((h) => (
          <HostItem key={h.name} host={h} focused={h.name === focus} onTrust={(fingerprint) => setTrusting({ host: h.name, fingerprint })} />
        ))}
      </ul>
      {gap ? (
        <RoleNote needed={keysNeed} testId="hosts-role-note" className="side-note">
          Trusting, forgetting and unlocking host keys need
        </RoleNote>
      ) : null}
      {trusting ? <TrustDialog host={trusting.host} fingerprint={trusting.fingerprint} onClose={() => setTrusting(null)} /> : null}
    </>
  );
}
