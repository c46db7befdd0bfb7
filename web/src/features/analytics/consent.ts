import { createStore } from '../../lib/store';

/** Browser storage keys of the analytics decision (spec: a true/false flag plus a timestamp). */
export const CONSENT_KEY = 'analyticsConsent';
export const CONSENT_TIMESTAMP_KEY = 'analyticsConsentTimestamp';

export type ConsentState = 'undecided' | 'accepted' | 'declined';

export interface ConsentRecord {
  accepted: boolean;
  /** When the visitor decided, epoch milliseconds. */
  timestamp: number;
}

export function readConsent(storage: Storage | null = safeLocalStorage()): ConsentRecord | null {
  const flag = storage?.getItem(CONSENT_KEY);
  if (flag !== 'true' && flag !== 'false') return null;
  const timestamp = Number(storage?.getItem(CONSENT_TIMESTAMP_KEY));
  return { accepted: flag === 'true', timestamp: Number.isFinite(timestamp) ? timestamp : 0 };
}

export function writeConsent(
  accepted: boolean,
  now: number = Date.now(),
  storage: Storage | null = safeLocalStorage(),
): ConsentRecord {
  try {
    storage?.setItem(CONSENT_KEY, String(accepted));
    storage?.setItem(CONSENT_TIMESTAMP_KEY, String(now));
  } catch {
    // storage full or blocked: the decision holds for this page view only
  }
  return { accepted, timestamp: now };
}

function stateOf(record: ConsentRecord | null): ConsentState {
  if (!record) return 'undecided';
  return record.accepted ? 'accepted' : 'declined';
}

/** A decision made during this page view; null: read it from storage. */
export const consentStore = createStore<ConsentState | null>(null);

/** The visitor's decision: 'undecided' on a first visit. */
export function getConsent(): ConsentState {
  return consentStore.get() ?? stateOf(readConsent());
}

/** Records the decision (flag and timestamp) and applies it. */
export function decideConsent(accepted: boolean): void {
  writeConsent(accepted);
  consentStore.set(accepted ? 'accepted' : 'declined');
}

function safeLocalStorage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}
