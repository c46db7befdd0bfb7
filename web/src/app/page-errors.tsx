import { isRouteErrorResponse, useRouteError } from 'react-router';
import { PageStatusError } from './page-status-error';
import { RouteErrorPage } from './route-error-page';

/**
 * What the router caught (a loader's thrown `Response`, which it hands over as an error response,
 * or anything a loader or component threw), as the error page describes it.
 */
function useCaughtError(): unknown {
  const error = useRouteError();
  if (!isRouteErrorResponse(error)) return error;
  const body =
    typeof error.data === 'string'
      ? error.data
      : error.data === null || error.data === undefined
        ? ''
        : JSON.stringify(error.data);
  return new PageStatusError(error.status, error.statusText, body);
}

/** A page that failed to load or render: the error page, inside the frame (header and footer stay). */
export function PageError() {
  return <RouteErrorPage error={useCaughtError()} />;
}

/** The frame itself failed: the error page, alone. */
export function FrameError() {
  return <RouteErrorPage error={useCaughtError()} />;
}
