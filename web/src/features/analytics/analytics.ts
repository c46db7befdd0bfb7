/**
 * The analytics client, loaded (as its own chunk) only after the visitor accepts analytics.
 *
 * There is no real analytics vendor here: the client records events in `window.dataLayer` the way
 * a tag script expects them and fetches nothing from other hosts. It keeps the engagement timer:
 * after 30 s without user activity the visitor counts as inactive, and the next activity makes them
 * active again.
 */

/** Analytics inactivity timer (spec constants). */
export const ANALYTICS_IDLE_MS = 30_000;

const ACTIVITY_EVENTS = ['pointerdown', 'pointermove', 'keydown', 'scroll', 'touchstart'] as const;

export type AnalyticsEvent = Record<string, unknown> & { event: string };

declare global {
  interface Window {
    dataLayer?: AnalyticsEvent[];
  }
}

export interface Analytics {
  pageView: (path: string) => void;
  stop: () => void;
}

export function startAnalytics(measurementId: string, idleMs: number = ANALYTICS_IDLE_MS): Analytics {
  const dataLayer = (window.dataLayer ??= []);
  const push = (event: AnalyticsEvent) => {
    dataLayer.push({ ...event, measurementId, at: Date.now() });
  };
  push({ event: 'analytics_start' });

  let active = true;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const armIdleTimer = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      active = false;
      push({ event: 'user_inactive' });
    }, idleMs);
  };
  const onActivity = () => {
    if (!active) {
      active = true;
      push({ event: 'user_active' });
    }
    armIdleTimer();
  };
  for (const type of ACTIVITY_EVENTS) window.addEventListener(type, onActivity, { passive: true });
  armIdleTimer();

  return {
    pageView: (path) => {
      push({ event: 'page_view', path });
    },
    stop: () => {
      if (timer !== undefined) clearTimeout(timer);
      for (const type of ACTIVITY_EVENTS) window.removeEventListener(type, onActivity);
    },
  };
}
