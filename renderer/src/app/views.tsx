// The console's views in one table: the nav's links (Sidebar), the `g` shortcuts and their help
// list (shortcuts.ts), the page titles, the lazy loading and what the content area renders all
// read it. Adding a view: its URL shape in ui/route.ts, its folder in features/, one entry here.

import type { ReactNode } from 'react';
import { ReviewView } from '../features/review/ReviewView';
import type { PhaseKey } from '../features/loops/selection';
import { lazyComponent } from '../ui/lazy-component';
import { openFinding, routeHash, type Route, type ViewName } from '../ui/route';

/** What the shell lends a view beyond its route: the phase open in the detail panel. */
export interface ViewContext {
  readonly selection: PhaseKey | null;
  readonly onSelect: (selection: PhaseKey | null) => void;
}

/** A lazy view's chunk, fetched ahead of its first use. */
export interface Preloadable {
  readonly preload: () => Promise<unknown>;
}

/** A view as the shell shows it. */
export interface ViewEntry<V extends ViewName = ViewName> {
  readonly view: V;
  readonly label: string;
  /** Its `g` shortcut letter; null for a view reached from another (not in the nav). */
  readonly key: string | null;
  /** Its hash without parameters (the nav's link). */
  readonly hash: string;
  /** A view loaded on first use, fetched ahead in idle time (the Review, the default route, is not). */
  readonly lazy: Preloadable | null;
  /** What the content area shows for a route of this view. */
  readonly render: (route: Extract<Route, { view: V }>, context: ViewContext) => ReactNode;
}

// Every view but the Review is loaded on first use: the first paint of the Review (the default
// route) evaluates only the shell and the Review, and the rest is fetched in idle time after it.
const CapacityView = lazyComponent(() => import('../features/capacity/CapacityView').then((m) => m.CapacityView));
const TrendsView = lazyComponent(() => import('../features/trends/TrendsView').then((m) => m.TrendsView));
const FindingsView = lazyComponent(() => import('../features/findings/FindingsView').then((m) => m.FindingsView));
const LoopsView = lazyComponent(() => import('../features/loops/LoopsView').then((m) => m.LoopsView));
const NoticesView = lazyComponent(() => import('../features/notices/NoticesView').then((m) => m.NoticesView));
const PrsView = lazyComponent(() => import('../features/prs/PrsView').then((m) => m.PrsView));
const DrillsView = lazyComponent(() => import('../features/drills/DrillsView').then((m) => m.DrillsView));
const HostsView = lazyComponent(() => import('../features/hosts/HostsView').then((m) => m.HostsView));
const LedgersView = lazyComponent(() => import('../features/ledgers/LedgersView').then((m) => m.LedgersView));
const CompareView = lazyComponent(() => import('../features/compare/CompareView').then((m) => m.CompareView));
const TranscriptView = lazyComponent(() => import('../features/transcript/TranscriptView').then((m) => m.TranscriptView));

/** One entry per view, keyed by name: a view without an entry does not compile. */
const TABLE: { readonly [V in ViewName]: Omit<ViewEntry<V>, 'view' | 'hash'> } = {
  review: { label: 'Review', key: 'r', lazy: null, render: () => <ReviewView /> },
  notices: { label: 'Notices', key: 'n', lazy: NoticesView, render: () => <NoticesView /> },
  loops: {
    label: 'Loops',
    key: 'l',
    lazy: LoopsView,
    render: (route, { selection, onSelect }) => <LoopsView selection={selection} onSelect={onSelect} focusLoop={route.loop ?? null} />,
  },
  findings: { label: 'Findings', key: 'f', lazy: FindingsView, render: (route) => <FindingsView selected={openFinding(route)} /> },
  prs: { label: 'Pull requests', key: 'p', lazy: PrsView, render: () => <PrsView /> },
  ledgers: { label: 'Ledgers', key: 'e', lazy: LedgersView, render: () => <LedgersView /> },
  capacity: { label: 'Capacity', key: 'c', lazy: CapacityView, render: () => <CapacityView /> },
  trends: { label: 'Trends', key: 't', lazy: TrendsView, render: () => <TrendsView /> },
  drills: { label: 'Drills', key: 'd', lazy: DrillsView, render: (route) => <DrillsView runId={route.runId ?? null} /> },
  // Reached from a notice or a link (the sidebar lists the hosts too).
  hosts: { label: 'Hosts', key: null, lazy: HostsView, render: (r) => <HostsView host={r.host} /> },
  // Opened from a phase (not in the nav): keyed by the transcript, so another one starts afresh.
  log: {
    label: 'Transcript',
    key: null,
    lazy: TranscriptView,
    render: (r) => <TranscriptView key={`${r.loop}\u0000${r.date}\u0000${r.phase}`} loop={r.loop} date={r.date} phase={r.phase} line={r.line} />,
  },
  // Opened from a cycle ("compare with the last good night") or a link: not in the nav.
  compare: { label: 'Compare nights', key: null, lazy: CompareView, render: (r) => <CompareView loop={r.loop} a={r.a} b={r.b} /> },
};

/** The nav's views, in its order (top to bottom); the `g` help list follows it. */
const NAV_ORDER: readonly Exclude<ViewName, 'log' | 'hosts' | 'compare'>[] = ['review', 'notices', 'loops', 'findings', 'ledgers', 'prs', 'capacity', 'trends', 'drills'];

/** The order lazy views are fetched ahead in: the ones opened most after the Review first. */
export const WARM_ORDER: readonly ViewName[] = ['findings', 'capacity', 'loops', 'ledgers', 'notices', 'prs', 'drills', 'trends', 'log', 'hosts', 'compare'];

function entryOf<V extends ViewName>(view: V): ViewEntry<V> {
  const hash = view === 'log' || view === 'compare' ? '' : view === 'hosts' ? '#/hosts' : routeHash(view === 'findings' ? { view: 'findings', loop: null, id: null } : ({ view } as Route));
  return { view, hash, ...TABLE[view] } as ViewEntry<V>;
}

/** A view in the nav: it has a `g` key. */
export type NavEntry = ViewEntry & { readonly key: string };

/** The nav's views, in its order. */
export const VIEWS: readonly NavEntry[] = NAV_ORDER.map((v) => entryOf(v) as NavEntry);

/** A view's label by name (for the page title and the content region's name). */
export const VIEW_LABEL: Readonly<Record<ViewName, string>> = Object.fromEntries(Object.entries(TABLE).map(([v, e]) => [v, e.label])) as Record<ViewName, string>;

/** What the content area shows for a route. */
export function renderView(route: Route, context: ViewContext): ReactNode {
  const render = TABLE[route.view].render as (route: Route, context: ViewContext) => ReactNode;
  return render(route, context);
}

/** The lazy views, in the order they are fetched ahead. */
export function lazyViews(): readonly Preloadable[] {
  return WARM_ORDER.flatMap((v) => {
    const lazy = TABLE[v].lazy;
    return lazy ? [lazy] : [];
  });
}
