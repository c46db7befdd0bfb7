import { useLayoutEffect } from 'react';
import { NavigationType, type Location } from 'react-router';

const STORAGE_KEY = 'page-scroll-positions';

/** Scroll positions by location key, kept for the tab's back/forward (and across a reload). */
let stored: Map<string, number> | null = null;
/** Locations whose navigation asked not to scroll to the top (`preventScrollReset`). */
const keepScroll = new Set<string>();

function positions(): Map<string, number> {
  stored ??= new Map(readStored());
  return stored;
}

function readStored(): [string, number][] {
  try {
    const stored: unknown = JSON.parse(window.sessionStorage.getItem(STORAGE_KEY) ?? '[]');
    return Array.isArray(stored) ? (stored as [string, number][]) : [];
  } catch {
    return [];
  }
}

/** Remembers where the page of `key` was scrolled to, as it is left. */
export function rememberScroll(key: string): void {
  positions().set(key, window.scrollY);
}

/** The navigation to `key` keeps the scroll position (a filter, a tab: the page stays). */
export function keepScrollFor(key: string): void {
  keepScroll.add(key);
}

/**
 * What React Router's `<ScrollRestoration>` does for its data router, for the page routes: a new
 * page starts at the top (or at its `#hash`), back and forward return to where the page was left,
 * and a navigation with `preventScrollReset` stays where it is. Runs once the page is on screen.
 */
export function ScrollRestoration({
  location,
  navigationType,
}: {
  location: Location;
  navigationType: NavigationType;
}) {
  useLayoutEffect(() => {
    window.history.scrollRestoration = 'manual';
    const save = () => {
      rememberScroll(location.key);
      try {
        window.sessionStorage.setItem(STORAGE_KEY, JSON.stringify([...positions()]));
      } catch {
        // storage full or denied: positions are kept for this document only
      }
    };
    window.addEventListener('pagehide', save);
    return () => {
      window.removeEventListener('pagehide', save);
    };
  }, [location.key]);

  useLayoutEffect(() => {
    const saved = positions().get(location.key);
    if (navigationType === NavigationType.Pop && saved !== undefined) {
      window.scrollTo(0, saved);
      return;
    }
    if (location.hash) {
      const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
      if (target) {
        target.scrollIntoView();
        return;
      }
    }
    if (keepScroll.has(location.key)) return;
    window.scrollTo(0, 0);
  }, [location, navigationType]);

  return null;
}
