import { createContext } from 'react';

/**
 * What the app's route manifest (`src/app/routes.json`) says of the page on screen: the app
 * provides it around each page (`src/app/page-meta.tsx`), `PageMeta` reads it. The BFF's
 * server-rendered head comes from the same manifest.
 */
export interface RouteMeta {
  /** The page's own title (the brand name is appended); empty for the site's default title. */
  title: string;
  /** Keep the page out of search results. */
  noindex: boolean;
}

/** Outside any page: the site's default title, indexed. */
export const RouteMetaContext = createContext<RouteMeta>({ title: '', noindex: false });
