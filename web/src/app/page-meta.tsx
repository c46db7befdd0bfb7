import type { ComponentType } from 'react';
import { RouteMetaContext, type RouteMeta } from '../lib/route-meta';

/**
 * A page module's component under its route's title and noindex from the route manifest (what
 * `PageMeta` reads). Made once per route, when the router has loaded the page's module.
 */
export function withMeta(Page: ComponentType, meta: RouteMeta): ComponentType {
  function RoutePage() {
    return (
      <RouteMetaContext.Provider value={meta}>
        <Page />
      </RouteMetaContext.Provider>
    );
  }
  RoutePage.displayName = `RoutePage(${Page.displayName ?? Page.name})`;
  return RoutePage;
}
