import { useGlobalLoading } from '../loading';

/** A thin indeterminate progress bar at the top of the window. */
export function GlobalLoadingIndicator() {
  const loading = useGlobalLoading();
  if (!loading) return null;
  return <div className="global-loading" role="progressbar" aria-label="Loading" />;
}
