import { isRouteErrorResponse, Link, useRouteError } from 'react-router';
import { errorMessage } from '../lib/api';

/** The generic error page of the router (spec: 'Unexpected Application Error!'). */
export function RouteErrorPage() {
  const error = useRouteError();
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
