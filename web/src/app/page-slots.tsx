import { createContext, useContext, type ReactNode } from 'react';
import { Outlet } from 'react-router';
import { RouteMetaContext, type RouteMeta } from '../lib/route-meta';
import { RouteErrorBoundary } from './route-error-boundary';
import { RouteErrorPage } from './route-error-page';
import type { RouteModule } from './route-module';

/** The page on screen, as the page routes (`page-routes.tsx`) hand it to the route table's slots. */
export interface ShownPage {
  /** Which page this is, of those shown: a new one resets the error boundaries. */
  key: string;
  /** The matched routes' page modules, by source path, loaded. */
  modules: ReadonlyMap<string, RouteModule>;
  /** Why the page failed to load, if it did (shown inside the frame). */
  error?: unknown;
}

export const ShownPageContext = createContext<ShownPage>({ key: '', modules: new Map() });

/** A page module's component, once loaded (a route's `element`), with its route's title and noindex. */
export function LoadedPage({ module, meta }: { module: string; meta?: RouteMeta | undefined }) {
  const Page = useContext(ShownPageContext).modules.get(module)?.Component;
  if (!Page) return null;
  return meta ? (
    <RouteMetaContext.Provider value={meta}>
      <Page />
    </RouteMetaContext.Provider>
  ) : (
    <Page />
  );
}

/** Where the pages render, inside the frame: a page that fails shows the error page there. */
export function PageSlot() {
  const { key, error } = useContext(ShownPageContext);
  return (
    <RouteErrorBoundary resetKey={key}>
      {error === undefined ? <Outlet /> : <RouteErrorPage error={error} />}
    </RouteErrorBoundary>
  );
}

/** Around the frame: when the frame itself fails, the error page shows alone. */
export function FrameSlot({ children }: { children: ReactNode }) {
  const { key } = useContext(ShownPageContext);
  return <RouteErrorBoundary resetKey={key}>{children}</RouteErrorBoundary>;
}
