import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderRoute } from '../../test/render';
import { advance, installFakeTimers } from '../../test/timers';
import { ANALYTICS_IDLE_MS, startAnalytics } from './analytics';
import { CONSENT_KEY, CONSENT_TIMESTAMP_KEY, getConsent, readConsent, writeConsent } from './consent';
// the modal loads lazily
import './consent-modal';

const events = () => (window.dataLayer ?? []).map((entry) => entry.event);

describe('consent storage', () => {
  beforeEach(() => {
    localStorage.clear();
  });

  it('is undecided until a flag is stored', () => {
    expect(readConsent()).toBeNull();
    expect(getConsent()).toBe('undecided');
  });

  it('stores the flag and the time of the decision', () => {
    expect(writeConsent(true, 1_700_000_000_000)).toEqual({ accepted: true, timestamp: 1_700_000_000_000 });
    expect(localStorage.getItem(CONSENT_KEY)).toBe('true');
    expect(localStorage.getItem(CONSENT_TIMESTAMP_KEY)).toBe('1700000000000');
    expect(readConsent()).toEqual({ accepted: true, timestamp: 1_700_000_000_000 });
    expect(getConsent()).toBe('accepted');

    writeConsent(false, 1_700_000_000_500);
    expect(readConsent()).toEqual({ accepted: false, timestamp: 1_700_000_000_500 });
    expect(getConsent()).toBe('declined');
  });

  it('treats anything but "true" and "false" as undecided', () => {
    localStorage.setItem(CONSENT_KEY, 'yes');
    expect(readConsent()).toBeNull();
  });
});

describe('consent modal', () => {
  beforeEach(() => {
    localStorage.clear();
    vi.spyOn(Date, 'now').mockReturnValue(1_700_000_123_000);
  });

  async function renderFirstVisit() {
    const user = userEvent.setup();
    renderRoute('/');
    const dialog = await screen.findByRole('dialog', { name: 'Your privacy' });
    return { user, dialog };
  }

  it('asks on the first visit; Accept stores true with the time and starts analytics', async () => {
    const { user, dialog } = await renderFirstVisit();
    expect(window.dataLayer).toBeUndefined();

    await user.click(within(dialog).getByRole('button', { name: 'Accept' }));

    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(localStorage.getItem(CONSENT_KEY)).toBe('true');
    expect(localStorage.getItem(CONSENT_TIMESTAMP_KEY)).toBe('1700000123000');
    await waitFor(() => {
      expect(events()).toEqual(['analytics_start', 'page_view']);
    });
    expect(window.dataLayer?.[0]).toMatchObject({ measurementId: 'G-TEST' });
  });

  it('Decline stores false with the time, and analytics never start', async () => {
    const { user, dialog } = await renderFirstVisit();

    await user.click(within(dialog).getByRole('button', { name: 'Decline' }));

    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(localStorage.getItem(CONSENT_KEY)).toBe('false');
    expect(localStorage.getItem(CONSENT_TIMESTAMP_KEY)).toBe('1700000123000');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(window.dataLayer).toBeUndefined();
  });

  it('does not ask again once decided, and starts analytics for a visitor who accepted earlier', async () => {
    writeConsent(true, 1);
    renderRoute('/');
    await screen.findByRole('heading', { name: 'Built for the Long Range' });
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await waitFor(() => {
      expect(events()).toContain('analytics_start');
    });
  });
});

describe('analytics inactivity timer', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('marks the visitor inactive after 30 s without activity, and active again on the next one', async () => {
    installFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const analytics = startAnalytics('G-TEST');

    await advance(ANALYTICS_IDLE_MS - 1);
    window.dispatchEvent(new Event('keydown'));
    await advance(ANALYTICS_IDLE_MS - 1);
    expect(events()).toEqual(['analytics_start']); // activity restarted the timer

    await advance(1);
    expect(events()).toEqual(['analytics_start', 'user_inactive']);

    window.dispatchEvent(new Event('pointermove'));
    expect(events()).toEqual(['analytics_start', 'user_inactive', 'user_active']);

    analytics.pageView('/faq');
    expect(window.dataLayer?.at(-1)).toMatchObject({ event: 'page_view', path: '/faq' });

    analytics.stop();
    await advance(ANALYTICS_IDLE_MS * 2);
    expect(events()).toHaveLength(4);
  });
});
