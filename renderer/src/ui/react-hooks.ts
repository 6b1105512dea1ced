import { useCallback, useEffect, useState, useSyncExternalStore, type RefCallback, type RefObject } from 'react';
import { parseRoute, routeHash, type Route } from './route';

function subscribeHash(cb: () => void): () => void {
  window.addEventListener('hashchange', cb);
  return () => window.removeEventListener('hashchange', cb);
}

/** The current route, from the URL hash; re-renders on back/forward and link clicks. */
export function useRoute(): Route {
  const hash = useSyncExternalStore(subscribeHash, () => window.location.hash);
  // Parsing is cheap and the result is compared by field, so no memo is needed here.
  return parseRoute(hash);
}

/** Go to a route, adding a history entry (so Back returns), unless already there. */
export function navigate(route: Route): void {
  const hash = routeHash(route);
  if (window.location.hash !== hash) window.location.hash = hash;
}

/** Go to a route in place of the current history entry (for moving a selection with the arrow keys). */
export function replaceRoute(route: Route): void {
  const hash = routeHash(route);
  if (window.location.hash === hash) return;
  const url = `${window.location.pathname}${window.location.search}${hash}`;
  window.history.replaceState(window.history.state, '', url);
  window.dispatchEvent(new HashChangeEvent('hashchange'));
}

/** The current time in ms, refreshed every `everyMs` (for ages and "now" lines). */
export function useNow(everyMs = 60_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = window.setInterval(() => setNow(Date.now()), everyMs);
    return () => window.clearInterval(id);
  }, [everyMs]);
  return now;
}

/** The content width of an element, kept current with a ResizeObserver; 0 before it is measured. */
export function useElementWidth(ref: RefObject<HTMLElement | null>): number {
  const [width, setWidth] = useState(0);
  const measure = useCallback(() => setWidth(ref.current?.clientWidth ?? 0), [ref]);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, [ref, measure]);
  return width;
}

/**
 * A ref for a box that may scroll sideways (a wide table on a phone): a tab stop while it scrolls,
 * so a keyboard can scroll it too (axe: scrollable-region-focusable), and none while it fits.
 */
export function useScrollFocus<T extends HTMLElement>(): RefCallback<T> {
  return useCallback((el: T | null) => {
    if (!el) return;
    let frame = 0;
    const mark = (): void => {
      frame = 0;
      if (el.scrollWidth > el.clientWidth + 1) el.tabIndex = 0;
      else el.removeAttribute('tabindex');
    };
    // Looked at once a frame at most: when the box resizes, and when its rows change (they widen it without resizing it).
    const soon = (): void => {
      frame ||= requestAnimationFrame(mark);
    };
    mark();
    const resized = new ResizeObserver(soon);
    resized.observe(el);
    const changed = new MutationObserver(soon);
    changed.observe(el, { childList: true, subtree: true, characterData: true });
    return () => {
      resized.disconnect();
      changed.disconnect();
      cancelAnimationFrame(frame);
    };
  }, []);
}
