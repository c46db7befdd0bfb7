import {
  matchRoutes,
  type HydrationState,
  type LoaderFunctionArgs,
  type RouteMatch,
  type RouteObject,
} from 'react-router';

/**
 * The browser's first screen of a server-rendered document, made ready before the router is
 * created, so that hydration renders exactly what the server did (never a fallback):
 *
 * - the lazily loaded modules of the routes that match are loaded and put on their routes (React
 *   Router's advice for lazy routes under server rendering), so the router starts initialized;
 * - their loaders run once, here, against the document's own data (`#document-data`, which the
 *   app's API client answers from: nothing is fetched): they prime the query cache the components
 *   read, and what they return is the router's hydration data (`loaderData`), as the server's
 *   `createStaticHandler` produced it from the same answers.
 *
 * Null when the first screen cannot be hydrated as it is (a loader redirected or failed, which
 * the server never stores as a page): the caller renders in the browser instead.
 */
export async function loadFirstScreen(routes: RouteObject[], url: URL): Promise<HydrationState | null> {
  const matches = matchRoutes(routes, url) ?? [];
  await Promise.all(
    matches.map(async ({ route }) => {
      if (typeof route.lazy !== 'function') return;
      const loaded = await route.lazy();
      Object.assign(route, loaded, { lazy: undefined });
    }),
  );
  const request = new Request(url);
  try {
    const loaderData: Record<string, unknown> = {};
    await Promise.all(
      matches.map(async ({ route, params }, index) => {
        if (typeof route.loader !== 'function' || route.id === undefined) return;
        const args: LoaderFunctionArgs = {
          request,
          url,
          params,
          pattern: patternOf(matches, index),
          context: undefined,
        };
        loaderData[route.id] = await route.loader(args);
      }),
    );
    // a loader's redirect (a `Response`) was the server's to answer
    if (Object.values(loaderData).some((data) => data instanceof Response)) return null;
    return { loaderData, actionData: null, errors: null };
  } catch {
    return null;
  }
}

/** The route's pattern (`/product/:title`), as React Router gives it to loaders. */
function patternOf(matches: readonly RouteMatch[], index: number): string {
  const segments = matches.slice(0, index + 1).flatMap((match) => (match.route.path ? [match.route.path] : []));
  return `/${segments.join('/')}`.replace(/\/+/g, '/');
}
