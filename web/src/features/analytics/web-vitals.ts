import { onCLS, onINP, onLCP, type Metric } from 'web-vitals';

/**
 * Web Vitals (LCP, INP, CLS) reported to the BFF's `POST /api/rum`, which exports them as
 * Prometheus histograms by route template. Loaded lazily, and only after the visitor accepted
 * analytics (see `use-analytics.ts`). Reports are queued and sent with `navigator.sendBeacon`
 * when the page is hidden or left, the moments a browser still delivers them; a beacon cannot
 * carry `X-CSRF`, and the BFF checks this route's origin instead. A report holds a route
 * template, a metric name and a number: nothing personal.
 */

export const RUM_ENDPOINT = '/api/rum';
/** The BFF's limits for one body. */
export const MAX_BODY_BYTES = 8 * 1024;
export const MAX_REPORTS = 64;

export interface RumReport {
  route: string;
  name: 'LCP' | 'INP' | 'CLS';
  value: number;
}

const REPORTED = new Set<string>(['LCP', 'INP', 'CLS']);

/** The reports as JSON bodies, each within the BFF's limits (a report that alone is too big is dropped). */
export function batches(reports: readonly RumReport[]): string[] {
  const bodies: string[] = [];
  let current: RumReport[] = [];
  const body = (batch: RumReport[]) => JSON.stringify({ reports: batch });
  const size = (text: string) => new TextEncoder().encode(text).length;
  for (const report of reports) {
    if (size(body([report])) > MAX_BODY_BYTES) continue;
    const next = [...current, report];
    if (next.length > MAX_REPORTS || size(body(next)) > MAX_BODY_BYTES) {
      bodies.push(body(current));
      current = [report];
    } else {
      current = next;
    }
  }
  if (current.length > 0) bodies.push(body(current));
  return bodies;
}

export interface WebVitalsReporter {
  /** Sends what is queued and reports nothing more. */
  stop(): void;
}

type Observe = (callback: (metric: Metric) => void) => void;

export interface WebVitalsOptions {
  /** The current page's route template, read when a metric is reported. */
  currentRoute: () => string;
  send?: (body: string) => void;
  observers?: readonly Observe[];
}

export function startWebVitals({
  currentRoute,
  send = (body) => navigator.sendBeacon(RUM_ENDPOINT, body),
  observers = [onLCP, onINP, onCLS],
}: WebVitalsOptions): WebVitalsReporter {
  let queue: RumReport[] = [];
  let stopped = false;
  const record = (metric: Metric) => {
    if (stopped || !REPORTED.has(metric.name)) return;
    queue.push({ route: currentRoute(), name: metric.name as RumReport['name'], value: metric.value });
  };
  for (const observe of observers) observe(record);
  const flush = () => {
    if (queue.length === 0) return;
    for (const body of batches(queue)) send(body);
    queue = [];
  };
  const onVisibility = () => {
    if (document.visibilityState === 'hidden') flush();
  };
  document.addEventListener('visibilitychange', onVisibility);
  window.addEventListener('pagehide', flush);
  return {
    stop() {
      flush();
      stopped = true;
      document.removeEventListener('visibilitychange', onVisibility);
      window.removeEventListener('pagehide', flush);
    },
  };
}
