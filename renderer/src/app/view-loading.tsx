// What the content area shows around a view: its loading state, the boundary that keeps the shell
// usable when a view fails, and the idle-time fetch of the lazy views' chunks (views.tsx lists them).

import { Component, type ReactNode } from 'react';
import { lazyViews } from './views';

/** How long an idle callback may wait for idle time before it runs anyway. */
const IDLE_TIMEOUT_MS = 2000;

/**
 * Warming begins this long after the first view's data painted (two frames): an idle slot right
 * after the commit would otherwise evaluate recharts (a ~80 ms long task) before that frame is
 * on screen, and nobody clicks a view in the first half second.
 */
const WARM_AFTER_PAINT_MS = 500;

/**
 * Fetch the lazy views' chunks one at a time, each in its own idle period (evaluating recharts is a
 * long task: one per idle slot keeps input responsive), so a first click does not wait for a chunk.
 * Returns a cancel. Browsers without requestIdleCallback (Safari, for serve mode) get a timer.
 */
export function warmViews(): () => void {
  let cancelled = false;
  let handle: number | null = null;
  const idle = (run: () => void): void => {
    handle = typeof window.requestIdleCallback === 'function' ? window.requestIdleCallback(run, { timeout: IDLE_TIMEOUT_MS }) : window.setTimeout(run, 50);
  };
  const next = (i: number): void => {
    const view = lazyViews()[i];
    if (cancelled) return;
    if (!view) {
      // Marks the end for tests and profiles (e2e/code-split.spec.ts waits on it).
      document.documentElement.dataset.viewsWarmed = 'true';
      return;
    }
    idle(() => {
      if (cancelled) return;
      // A chunk that fails here is tried again when its view is opened; the others still warm.
      void view.preload().then(
        () => next(i + 1),
        () => next(i + 1),
      );
    });
  };
  let frame: number | null = requestAnimationFrame(() => {
    frame = requestAnimationFrame(() => {
      frame = null;
      delay = window.setTimeout(() => next(0), WARM_AFTER_PAINT_MS);
    });
  });
  let delay: number | null = null;
  return () => {
    cancelled = true;
    if (frame !== null) cancelAnimationFrame(frame);
    if (delay !== null) window.clearTimeout(delay);
    if (handle === null) return;
    if (typeof window.cancelIdleCallback === 'function') window.cancelIdleCallback(handle);
    else window.clearTimeout(handle);
  };
}

/**
 * What a view shows while its chunk loads (rarely seen: warming usually got there first). Hidden
 * for its first moments by CSS, so a local load never flashes it; a status for screen readers.
 */
export function ViewLoading({ label }: { label: string }) {
  return (
    <div className="empty card view-loading" role="status" data-testid="view-loading">
      <p className="muted">Loading {label}…</p>
    </div>
  );
}

interface BoundaryState {
  readonly error: Error | null;
}

/**
 * Catches a view that failed to load or render, so the shell (nav, hosts, notices) stays usable.
 * A chunk goes missing when the renderer was rebuilt under an open serve page: reloading fetches the new one.
 */
export class ViewBoundary extends Component<{ label: string; children: ReactNode }, BoundaryState> {
  override state: BoundaryState = { error: null };

  static getDerivedStateFromError(error: unknown): BoundaryState {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <div className="empty card" role="alert" data-testid="view-failed">
        <h2>The {this.props.label} view could not be shown</h2>
        <p className="error-text">{error.message}</p>
        <p>If Loopdeck was updated or rebuilt while this page was open, reloading the page fetches the new version.</p>
        <button type="button" onClick={() => window.location.reload()}>
          Reload
        </button>
      </div>
    );
  }
}
