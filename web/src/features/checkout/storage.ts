import {
  billingSchema,
  dealerSchema,
  emptyBillingForm,
  emptyDealerForm,
  type BillingForm,
  type DealerForm,
} from './schemas';

/**
 * The billing and dealer forms, kept in the browser session between the steps and reloads
 * (spec section 3) and cleared after the order. Never a token or a card field.
 */
export const BILLING_FORM_KEY = 'billingForm';
export const DEALER_FORM_KEY = 'dealerForm';

function read(key: string): unknown {
  try {
    const text = sessionStorage.getItem(key);
    return text === null ? null : (JSON.parse(text) as unknown);
  } catch {
    return null;
  }
}

function write(key: string, value: unknown): void {
  try {
    sessionStorage.setItem(key, JSON.stringify(value));
  } catch {
    // storage full or disabled: the forms just do not survive a reload
  }
}

/** The saved values over the empty form, field by field (an address's too), each only when of the same type. */
function merge<T extends object>(empty: T, saved: unknown): T | null {
  if (typeof saved !== 'object' || saved === null || Array.isArray(saved)) return null;
  const merged: Record<string, unknown> = Object.fromEntries(Object.entries(empty));
  for (const [key, value] of Object.entries(empty)) {
    const candidate = (saved as Record<string, unknown>)[key];
    if (typeof value === 'object' && value !== null) merged[key] = merge(value, candidate) ?? value;
    else if (typeof candidate === typeof value) merged[key] = candidate;
  }
  return merged as T;
}

/** The saved billing form (possibly incomplete), or null when none is saved. */
export function loadBillingForm(): BillingForm | null {
  return merge(emptyBillingForm, read(BILLING_FORM_KEY));
}

export function loadDealerForm(): DealerForm | null {
  return merge(emptyDealerForm, read(DEALER_FORM_KEY));
}

export function saveBillingForm(billing: BillingForm): void {
  write(BILLING_FORM_KEY, billing);
}

export function saveDealerForm(dealer: DealerForm): void {
  write(DEALER_FORM_KEY, dealer);
}

export function saveForms(billing: BillingForm, dealer: DealerForm | null): void {
  saveBillingForm(billing);
  if (dealer) saveDealerForm(dealer);
}

export function clearForms(): void {
  sessionStorage.removeItem(BILLING_FORM_KEY);
  sessionStorage.removeItem(DEALER_FORM_KEY);
}

/** The saved forms when they pass their rules (the billing step is complete), else null. */
export function completedForms(needsDealer: boolean): { billing: BillingForm; dealer: DealerForm | null } | null {
  const billing = billingSchema.safeParse(loadBillingForm());
  if (!billing.success) return null;
  if (!needsDealer) return { billing: billing.data, dealer: null };
  const dealer = dealerSchema.safeParse(loadDealerForm());
  return dealer.success ? { billing: billing.data, dealer: dealer.data } : null;
}
