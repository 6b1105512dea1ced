// The console's views in one table: the nav's links (Sidebar), the `g` shortcuts and their help
// list (shortcuts.ts), and the page titles all read it, so a view is added or renamed once.

import { routeHash, type ViewName } from './route';

/** A view as the nav shows it: its route name, its label, its `g` shortcut letter and its hash. */
export interface ViewEntry {
  readonly view: ViewName;
  readonly label: string;
  readonly key: string;
  readonly hash: string;
}

const entry = (view: ViewName, label: string, key: string): ViewEntry => ({
  view,
  label,
  key,
  hash: routeHash(view === 'findings' ? { view, id: null } : { view }),
});

/** Every view, in the nav's order (top to bottom); the `g` help list follows the same order. */
export const VIEWS: readonly ViewEntry[] = [
  entry('review', 'Review', 'r'),
  entry('notices', 'Notices', 'n'),
  entry('loops', 'Loops', 'l'),
  entry('findings', 'Findings', 'f'),
  entry('prs', 'Pull requests', 'p'),
  entry('capacity', 'Capacity', 'c'),
  entry('trends', 'Trends', 't'),
  entry('drills', 'Drills', 'd'),
];

/** A view's label by name (for the page title and the content region's name). */
export const VIEW_LABEL: Readonly<Record<ViewName, string>> = Object.fromEntries(VIEWS.map((v) => [v.view, v.label])) as Record<
  ViewName,
  string
>;
