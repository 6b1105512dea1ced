// The console's views live in the URL hash (`#/loops`, `#/findings/R-123`, `#/prs`) so they can be
// linked to and the back button works. The query string stays the transport's (the serve token).

/** Which view is shown, and for findings, which one is open. */
export type Route =
  | { readonly view: 'loops' }
  | { readonly view: 'findings'; readonly id: string | null }
  | { readonly view: 'prs' };

/** The name of a view. */
export type ViewName = Route['view'];

/** Parse a location hash; anything unknown (including the old `#loops`) is the loops view. */
export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#\/?/, '');
  const [head, ...rest] = path.split('/');
  if (head === 'findings') {
    const raw = rest.join('/');
    let id: string | null = null;
    if (raw) {
      try {
        id = decodeURIComponent(raw);
      } catch {
        id = raw;
      }
    }
    return { view: 'findings', id };
  }
  if (head === 'prs') return { view: 'prs' };
  return { view: 'loops' };
}

/** The hash for a route; finding ids are encoded (review findings carry a `#`). */
export function routeHash(route: Route): string {
  if (route.view === 'findings') return route.id ? `#/findings/${encodeURIComponent(route.id)}` : '#/findings';
  return `#/${route.view}`;
}
