import { useEffect, useState } from 'react';
import { Link, useLocation } from 'react-router';
import { errorMessage } from '../lib/api';
import { isChunkLoadError, shouldReload } from './chunk-reload';
import { PageStatusError } from './page-status-error';

/**
 * The generic error page (spec: 'Unexpected Application Error!'), for a page whose load or render
 * failed (the router's error elements: `page-errors.tsx`). A page whose code did not load (a
 * deploy replaced it) is loaded again instead, once, by a full navigation to where the shopper
 * was going (see `chunk-reload.ts`).
 */
export function RouteErrorPage({ error }: { error: unknown }) {
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
  if (error instanceof PageStatusError) {
    const text = error.body ? `: ${error.body}` : '';
    return `${String(error.status)} ${error.statusText}`.trim() + text;
  }
  return errorMessage(error);
}
