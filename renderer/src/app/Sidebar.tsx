import { formatCount } from '../features/findings/findings';
import type { ViewName } from '../ui/route';
import { VIEWS } from './views';
import { selectOpenFindingCount, useDeck } from '../store';
import { HostList } from '../features/hosts/HostList';
import { NoticesNavCount } from '../features/notices/NoticesNavCount';

function NavCount({ view }: { view: ViewName }) {
  const open = useDeck((s) => (view === 'findings' ? selectOpenFindingCount(s) : 0));
  const ready = useDeck((s) => (view === 'prs' ? s.prs.filter((p) => p.status === 'ready').length : 0));
  if (view === 'findings' && open > 0) return <span className="nav-count" title={`${formatCount(open)} open findings`}>{formatCount(open)}</span>;
  if (view === 'notices') return <NoticesNavCount />;
  if (view === 'prs' && ready > 0) return <span className="nav-count nav-count-ready" title={`${ready} ready to merge`}>{ready}</span>;
  return null;
}

/** The left column: the views (links in the URL hash, so Back works) and the host list. */
export function Sidebar({ view }: { view: ViewName }) {
  return (
    <nav className="sidebar" aria-label="Main">
      <ul className="nav">
        {VIEWS.map((v) => (
          <li key={v.view}>
            <a
              className={`nav-item${v.view === view ? ' active' : ''}`}
              aria-current={v.view === view ? 'page' : undefined}
              href={v.hash}
              data-testid={`nav-${v.view}`}
            >
              <span>{v.label}</span>
              <NavCount view={v.view} />
            </a>
          </li>
        ))}
      </ul>
      <h2 className="side-heading">Hosts</h2>
      <HostList />
    </nav>
  );
}
