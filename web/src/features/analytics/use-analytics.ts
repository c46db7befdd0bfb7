import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { useLocation, useParams } from 'react-router';
import { useAfterFirstScreen } from '../../lib/idle';
import { useRuntimeConfig } from '../../lib/runtime-config';
import type { Analytics } from './analytics';
import { consentStore, getConsent, type ConsentState } from './consent';
import { routeTemplate } from './route-template';
import type { WebVitalsReporter } from './web-vitals';

/** The visitor's analytics decision ('undecided' on a first visit). */
export function useConsent(): ConsentState {
  return useSyncExternalStore(consentStore.subscribe, getConsent, getConsent);
}

/**
 * Starts analytics once the visitor has accepted (never before) and the first screen is done
 * (its script is no part of the first screen), and records page views.
 */
export function useAnalytics(): void {
  const consent = useConsent();
  const later = useAfterFirstScreen();
  const measurementId = useRuntimeConfig()?.analytics.measurementId;
  const { pathname } = useLocation();
  const [analytics, setAnalytics] = useState<Analytics | null>(null);

  useEffect(() => {
    if (!later || consent !== 'accepted' || !measurementId) return;
    let cancelled = false;
    let started: Analytics | null = null;
    void import('./analytics').then(({ startAnalytics }) => {
      if (cancelled) return;
      started = startAnalytics(measurementId);
      setAnalytics(started);
    });
    return () => {
      cancelled = true;
      started?.stop();
      setAnalytics(null);
    };
  }, [later, consent, measurementId]);

  useEffect(() => {
    analytics?.pageView(pathname);
  }, [analytics, pathname]);

  useWebVitals(later ? consent : 'undecided');
}

/**
 * Reports Web Vitals once the visitor has accepted analytics, for the configured share of page
 * views; the reporter (and the `web-vitals` library) loads lazily, outside the entry bundle, after
 * the first screen (its observers are buffered: the first screen's LCP and CLS are still seen).
 */
function useWebVitals(consent: ConsentState): void {
  const sampleRatio = useRuntimeConfig()?.telemetry.rumSampleRatio;
  const { pathname } = useLocation();
  // in a layout, the params of the whole match (the matched page's included)
  const params = useParams();
  const template = routeTemplate(pathname, params);
  const route = useRef(template);
  useEffect(() => {
    route.current = template;
  }, [template]);

  useEffect(() => {
    if (consent !== 'accepted' || sampleRatio === undefined || Math.random() >= sampleRatio) return;
    let cancelled = false;
    let reporter: WebVitalsReporter | undefined;
    void import('./web-vitals').then(({ startWebVitals }) => {
      if (cancelled) return;
      reporter = startWebVitals({ currentRoute: () => route.current });
    });
    return () => {
      cancelled = true;
      reporter?.stop();
    };
  }, [consent, sampleRatio]);
}
