import { formatClock, formatDateTime } from '../ui/format';
import { SIGN_OUT_PATH } from '../../../shared/sign-in';
import { selectCaller, showsIdentity, useDeck } from '../store';
import { ConnectionIndicator } from './ConnectionIndicator';
import { ThemeToggle } from './ThemeToggle';

/** Who is signed in and with which role, when serve recognised a person (OIDC, a proxy); Sign out for an OIDC sign-in. */
function Identity() {
  const caller = useDeck(selectCaller);
  if (!showsIdentity(caller)) return null;
  return (
    <span className="identity" data-testid="identity">
      <span className="identity-who" title={`Signed in ${caller.via === 'oidc' ? 'with your identity provider' : 'by the proxy in front'} as ${caller.user}, role ${caller.role}`}>
        <span className="identity-user">{caller.user}</span> · {caller.role}
      </span>
      {caller.via === 'oidc' ? (
        <a className="identity-out" href={SIGN_OUT_PATH} data-testid="sign-out">
          Sign out
        </a>
      ) : null}
    </span>
  );
}

/** The top bar: product, demo mark, snapshot time, the connection state and who is signed in. */
export function Header() {
  const info = useDeck((s) => s.info);
  const takenAt = useDeck((s) => s.takenAt);
  const updatedAt = useDeck((s) => s.updatedAt);
  const loading = useDeck((s) => s.request.state === 'loading');
  const stage = useDeck((s) => s.stage.state);
  const restored = stage === 'restored';
  const reading = stage === 'reading';
  const changed = updatedAt && updatedAt !== takenAt;
  return (
    <header className="topbar">
      <div className="brand">
        <span className="logo" aria-hidden="true" />
        Loopdeck
        {info?.demo ? <span className="tag tag-demo">demo data</span> : null}
      </div>
      <div className="topbar-right">
        {takenAt ? (
          <span className="times" title={formatDateTime(takenAt) ?? undefined}>
            Snapshot <time dateTime={takenAt}>{formatClock(takenAt)}</time>
            {changed ? (
              <>
                {' · updated '}
                <time dateTime={updatedAt}>{formatClock(updatedAt)}</time>
              </>
            ) : null}
            {loading ? ' · refreshing…' : null}
            {restored && !loading ? (
              <span className="restored" data-testid="restored" title="The state as saved when Loopdeck last ran; it is being read afresh.">
                {' · as last saved, reading afresh…'}
              </span>
            ) : null}
            {reading && !loading ? (
              <span className="restored" data-testid="reading" title="Loopdeck has just started and is still reading the loops' files; rows and counts may be incomplete.">
                {' · reading…'}
              </span>
            ) : null}
          </span>
        ) : null}
        <ConnectionIndicator />
        <Identity />
        <ThemeToggle />
        {info ? <span className="version">v{info.version}</span> : null}
      </div>
    </header>
  );
}
