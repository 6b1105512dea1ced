import { formatCount } from '../lib/findings';
import { routeHash, type ViewName } from '../lib/route';
import { selectOpenFindingCount, useDeck } from '../store';
import { HostList } from './HostList';
import { NoticesNavCount } from './NoticesNavCount';

const VIEWS: readonly { view: ViewName; label: string }[] = [
  { view: 'review', label: 'Review' },
  { view: 'notices', label: 'Notices' },
  { view: 'loops', label: 'Loops' },
  { view: 'findings', label: 'Findings' },
  { view: 'prs', label: 'Pull requests' },
  { view: 'capacity', label: 'Capacity' },
  { view: 'trends', label: 'Trends' },
  { view: 'drills', label: 'Drills' },
];

function NavCount({ view }: { view: ViewName }) {
  const open = useDeck((s) => (view === 'findings' ? selectOpenFindingCount(s) : 0));
  const ready = useDeck((s) => (view === 'prs' ? s.prs.filter((p) => p.status === 'ready').length : 0));
  if (view === 'findings' && open > 0) return <span className="nav-count" title={`${formatCount(open)} open findings`}>{formatCount(open)}</span>;
  if (view === 'notices') return <NoticesNavCount />;
  if (view === 'prs' && ready > 0) return <span className="nav-count nav-count-ready" title={`${ready} ready to merge`}>{ready}</span>;
  return null;
}

/** The left column: the three views (links in the URL hash, so Back works) and the host list. */
export function Sidebar({ view }: { view: ViewName }) {
  return (
    <nav className="sidebar" aria-label="Main">
      <ul className="nav">
        {VIEWS.map((v) => (
          <li key={v.view}>
            <a
              className={`nav-item${v.view === view ? ' active' : ''}`}
              aria-current={v.view === view ? 'page' : undefined}
              href={routeHash(v.view === 'findings' ? { view: 'findings', id: null } : { view: v.view })}
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
