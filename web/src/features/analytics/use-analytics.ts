import { useEffect, useState, useSyncExternalStore } from 'react';
import { useLocation } from 'react-router';
import { useRuntimeConfig } from '../../lib/runtime-config';
import type { Analytics } from './analytics';
import { consentStore, getConsent, type ConsentState } from './consent';

/** The visitor's analytics decision ('undecided' on a first visit). */
export function useConsent(): ConsentState {
  return useSyncExternalStore(consentStore.subscribe, getConsent, getConsent);
}

/** Starts analytics once the visitor has accepted (never before), and records page views. */
export function useAnalytics(): void {
  const consent = useConsent();
  const measurementId = useRuntimeConfig()?.analytics.measurementId;
  const { pathname } = useLocation();
  const [analytics, setAnalytics] = useState<Analytics | null>(null);

  useEffect(() => {
    if (consent !== 'accepted' || !measurementId) return;
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
  }, [consent, measurementId]);

  useEffect(() => {
    analytics?.pageView(pathname);
  }, [analytics, pathname]);
}
