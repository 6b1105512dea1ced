import { HostList } from './HostList';

/** The left column: navigation (only Loops for now) and the host list. */
export function Sidebar() {
  return (
    <nav className="sidebar" aria-label="Main">
      <ul className="nav">
        <li>
          <a className="nav-item active" aria-current="page" href="#loops">
            Loops
          </a>
        </li>
      </ul>
      <h2 className="side-heading">Hosts</h2>
      <HostList />
    </nav>
  );
}
