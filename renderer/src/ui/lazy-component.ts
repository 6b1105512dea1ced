// Views other than the Review are loaded on first use (their chunks hold recharts, the virtual
// table and the rest), and fetched ahead in idle time after the first paint. React.lazy alone
// suspends once even for a chunk that is already here (its promise resolves a microtask later),
// which flashes the loading state on every first visit; once `preload` has finished, the view is
// rendered directly instead.

import { createElement, lazy, useState, type ComponentType, type ReactElement } from 'react';

/** A component loaded on first render, or ahead of it with `preload`. */
export interface LazyComponent<P extends object> {
  (props: P): ReactElement;
  /** Fetch and evaluate the component's chunk now; the same promise on every call once it succeeded. */
  readonly preload: () => Promise<ComponentType<P>>;
}

/** Wrap a dynamic import of a component: rendered through Suspense until its chunk has loaded, directly after. */
export function lazyComponent<P extends object>(load: () => Promise<ComponentType<P>>): LazyComponent<P> {
  let loaded: ComponentType<P> | null = null;
  let pending: Promise<ComponentType<P>> | null = null;
  const preload = (): Promise<ComponentType<P>> => {
    pending ??= load().then(
      (component) => (loaded = component),
      (error: unknown) => {
        // A failed fetch (the build was replaced under a served page) may succeed on a later try.
        pending = null;
        throw error;
      },
    );
    return pending;
  };
  const Suspending = lazy(async () => ({ default: await preload() }));
  function Lazy(props: P): ReactElement {
    // Chosen once per mount: switching from the lazy wrapper to the component would remount it and lose its state.
    const [direct] = useState(() => loaded);
    return direct ? createElement(direct, props) : createElement(Suspending as ComponentType<P>, props);
  }
  return Object.assign(Lazy, { preload });
}
