import type { QueryClient } from '@tanstack/react-query';
import { memo, startTransition, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import {
  UNSAFE_LocationContext as LocationContext,
  useLocation,
  useNavigate,
  useNavigationType,
  useRoutes,
  type Location,
  type NavigationType,
  type RouteObject,
} from 'react-router';
import { pageLoadingStore } from '../lib/page-loading';
import { pageShown } from '../lib/page-navigation';
import { HydrateFallback } from './hydrate-fallback';
import { loadPage, type LoadedPage, type PreviousPage } from './page-loads';
import { ShownPageContext } from './page-slots';
import { ScrollRestoration, rememberScroll } from './scroll-restoration';

interface Shown {
  load: LoadedPage;
  location: Location;
  navigationType: NavigationType;
  /** Whether it is the page the app started on (its scroll position is the browser's). */
  first: boolean;
  /** Counts the pages shown: a new one resets the error boundaries. */
  serial: number;
}

interface PageRoutesProps {
  routes: RouteObject[];
  queryClient: QueryClient;
  /** The first page, loaded before the app rendered (server render, hydration); else null. */
  first: LoadedPage | null;
}

/**
 * The route table's pages, each shown once it has loaded (`page-loads.ts`): until then the page
 * on screen stays, with its location (what its components read), as React Router's data router
 * keeps it, and the frame shows that a page is loading. The next page is revealed in a
 * transition, so what is already on screen (an open form's pending mutation) is not torn down in
 * the middle of an update. Before the first page has loaded, the fallback shows.
 */
export function PageRoutes({ routes, queryClient, first }: PageRoutesProps) {
  const location = useLocation();
  const navigationType = useNavigationType();
  const navigate = useNavigate();
  const [shown, setShown] = useState<Shown | null>(() =>
    first ? { load: first, location, navigationType, first: true, serial: 0 } : null,
  );
  // The navigation being loaded (its location, one object per navigation; keys repeat, as
  // 'default' for every entry the app did not push): a load that is overtaken is dropped, and a
  // load starts once per navigation (StrictMode runs effects twice).
  const loading = useRef<{ location: Location; controller?: AbortController } | null>(first ? { location } : null);
  const shownRef = useRef(shown);
  useLayoutEffect(() => {
    shownRef.current = shown;
  }, [shown]);

  useEffect(() => {
    if (loading.current?.location === location) return;
    loading.current?.controller?.abort();
    const controller = new AbortController();
    loading.current = { location, controller };
    const before = shownRef.current;
    if (before) rememberScroll(before.location.key);
    const next = { location, navigationType, first: false, serial: (before?.serial ?? 0) + 1 };
    // a change of the hash alone loads nothing (it scrolls)
    if (before && onlyHashChanged(before.location, location)) {
      startTransition(() => {
        setShown({ ...next, load: before.load });
      });
      return;
    }
    pageLoadingStore.set(true);
    const previous: PreviousPage | null = before ? { url: urlOf(before.location), matches: before.load.matches } : null;
    void loadPage({
      routes,
      location,
      origin: window.location.origin,
      queryClient,
      previous,
      signal: controller.signal,
    }).then((load) => {
      if (loading.current?.location !== location) return;
      if (load.kind === 'redirect') {
        void navigate(load.location, { replace: true });
        return;
      }
      startTransition(() => {
        setShown({ ...next, load });
      });
    });
  }, [location, navigationType, navigate, queryClient, routes]);

  useEffect(() => {
    if (!shown || loading.current?.location !== shown.location) return;
    pageLoadingStore.set(false);
    pageShown();
  }, [shown]);

  if (!shown) return <HydrateFallback />;
  return <ShownRoutes routes={routes} shown={shown} />;
}

/**
 * The shown page's routes, in a location context of their own: what the page reads with
 * `useLocation` is the shown page's location, one object until another page shows, as under the
 * data router. (`useRoutes(routes, location)` would subscribe to the router's location and hand
 * out a new object on every navigation, and an effect that depends on the location, such as the
 * notification banner's, which navigates, would run again while the next page loads.)
 */
const ShownRoutes = memo(function ShownRoutes({ routes, shown }: { routes: RouteObject[]; shown: Shown }) {
  const context = useMemo(
    () => ({ location: shown.location, navigationType: shown.navigationType }),
    [shown.location, shown.navigationType],
  );
  const page = useMemo(
    () => ({ key: String(shown.serial), modules: shown.load.modules, error: shown.load.error }),
    [shown.serial, shown.load],
  );
  return (
    <LocationContext.Provider value={context}>
      <ShownPageContext.Provider value={page}>
        <RouteTree routes={routes} />
        {shown.first ? null : <ScrollRestoration location={shown.location} navigationType={shown.navigationType} />}
      </ShownPageContext.Provider>
    </LocationContext.Provider>
  );
});

const RouteTree = memo(function RouteTree({ routes }: { routes: RouteObject[] }) {
  return useRoutes(routes);
});

function onlyHashChanged(a: Location, b: Location): boolean {
  return a.pathname === b.pathname && a.search === b.search && a.hash !== b.hash;
}

function urlOf(location: Location): URL {
  return new URL(`${location.pathname}${location.search}`, window.location.origin);
}
