import { useEffect, useLayoutEffect, useRef } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { useStore } from '../../lib/store';
import {
  clearNotification,
  NOTIFICATION_TIMEOUT_MS,
  notificationFromState,
  notificationStore,
  notify,
  type Notification,
} from './store';

/**
 * The notification banner: message and type, shown until closed, cleared after 30 s and on every
 * route change. A notification passed in navigation state is shown and then removed from that
 * state (so reloading or going back does not show it again).
 *
 * Two persistent live regions (status for success and warning, alert for errors) so screen
 * readers announce what appears in them.
 */
export function NotificationBanner() {
  const notification = useStore(notificationStore);
  useRouteNotifications();

  useEffect(() => {
    if (!notification) return;
    const timer = setTimeout(clearNotification, NOTIFICATION_TIMEOUT_MS);
    return () => {
      clearTimeout(timer);
    };
  }, [notification]);

  const isError = notification?.type === 'error';
  return (
    <div className="notifications">
      <div role="status">{notification && !isError ? <Banner notification={notification} /> : null}</div>
      <div role="alert">{notification && isError ? <Banner notification={notification} /> : null}</div>
    </div>
  );
}

function Banner({ notification }: { notification: Notification }) {
  return (
    <div className={`notification notification--${notification.type}`}>
      <p className="notification__message">{notification.message}</p>
      <button type="button" className="notification__close" onClick={clearNotification} aria-label="Close notification">
        <span aria-hidden="true">×</span>
      </button>
    </div>
  );
}

/** Clears the banner on route changes and shows the notification carried by navigation state. */
function useRouteNotifications() {
  const location = useLocation();
  const navigate = useNavigate();
  const previousPath = useRef<string | null>(null);

  // A layout effect, so the old page's notification is gone in the same commit that shows the new
  // page: a passive effect would let the new page paint (and be read) with the stale banner.
  useLayoutEffect(() => {
    if (previousPath.current !== null && previousPath.current !== location.pathname) clearNotification();
    previousPath.current = location.pathname;
  }, [location.pathname]);

  useEffect(() => {
    const fromState = notificationFromState(location.state);
    if (!fromState) return;
    notify(fromState);
    const rest: Record<string, unknown> = { ...(location.state as Record<string, unknown>) };
    delete rest.notification;
    void navigate(
      { pathname: location.pathname, search: location.search, hash: location.hash },
      { replace: true, state: Object.keys(rest).length > 0 ? rest : null, preventScrollReset: true },
    );
  }, [location, navigate]);
}
