import { useEffect, useState } from 'react';
import { isRouteErrorResponse, Link, useLocation, useRouteError } from 'react-router';
import { errorMessage } from '../lib/api';
import { isChunkLoadError, shouldReload } from './chunk-reload';

/**
 * The generic error page of the router (spec: 'Unexpected Application Error!'). A page whose
 * code did not load (a deploy replaced it) is loaded again instead, once, by a full navigation
 * to where the shopper was going (see `chunk-reload.ts`).
 */
export function RouteErrorPage() {
  const error = useRouteError();
  const location = useLocation();
  const [reloading] = useState(
    () => isChunkLoadError(error) && shouldReload(window.sessionStorage, Date.now(), String(performance.timeOrigin)),
  );
  useEffect(() => {
    if (reloading) window.location.assign(location.pathname + location.search + location.hash);
  }, [reloading, location]);
  if (reloading) {
    return (
      <div className="route-error" role="status">
        <p>Loading the latest version of the store…</p>
      </div>
    );
  }
  return (
    <div className="route-error" role="alert">
      <h1>Unexpected Application Error!</h1>
      <p className="route-error__detail">{describe(error)}</p>
      <p>
        <Link to="/">Go to the home page</Link>
      </p>
    </div>
  );
}

export function describe(error: unknown): string {
  if (isRouteErrorResponse(error)) {
    const data: unknown = error.data;
    const text = typeof data === 'string' && data ? `: ${data}` : '';
    return `${String(error.status)} ${error.statusText}`.trim() + text;
  }
  return errorMessage(error);
}
