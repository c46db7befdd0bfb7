import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import '../../app/routes/faq';
import '../../app/routes/warranty';
import { renderRoute } from '../../test/render';
import { advance, installFakeTimers } from '../../test/timers';
import { NOTIFICATION_TIMEOUT_MS, notificationFromState, notify, notifyError } from './store';

afterEach(() => {
  vi.useRealTimers();
});

async function renderHome() {
  const rendered = renderRoute('/');
  await screen.findByRole('heading', { name: 'Built for the Long Range' });
  return rendered;
}

describe('notification banner', () => {
  it('shows the message by type until it is closed', async () => {
    const user = userEvent.setup();
    await renderHome();

    act(() => {
      notify({ message: 'You have been subscribed to the newsletter', type: 'success' });
    });
    // Other polite live regions (the loading indicator) may be on the page too, so the
    // message is found first and its region checked, rather than picking a region by role.
    const message = await screen.findByText('You have been subscribed to the newsletter');
    expect(message.closest('[role="status"]')).not.toBeNull();
    expect(message.closest('[role="alert"]')).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Close notification' }));
    expect(screen.queryByText('You have been subscribed to the newsletter')).not.toBeInTheDocument();
  });

  it('announces errors in an alert region', async () => {
    await renderHome();
    act(() => {
      notifyError(new Error('Network down'));
    });
    expect(within(screen.getByRole('alert')).getByText('Error: Network down')).toBeInTheDocument();
  });

  it('scrolls to the top when a notification is set', async () => {
    await renderHome();
    const scrollTo = vi.spyOn(window, 'scrollTo');
    act(() => {
      notify({ message: 'Saved', type: 'success' });
    });
    expect(scrollTo).toHaveBeenCalledWith(expect.objectContaining({ top: 0 }));
  });

  it('clears itself after 30 seconds, counted from the latest notification', async () => {
    await renderHome();
    installFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });

    act(() => {
      notify({ message: 'First', type: 'warning' });
    });
    await advance(NOTIFICATION_TIMEOUT_MS - 1000);
    act(() => {
      notify({ message: 'Second', type: 'warning' });
    });
    await advance(NOTIFICATION_TIMEOUT_MS - 1);
    expect(screen.getByText('Second')).toBeInTheDocument();

    await advance(1);
    expect(screen.queryByText('Second')).not.toBeInTheDocument();
  });

  it('is cleared by a route change', async () => {
    const user = userEvent.setup();
    await renderHome();
    act(() => {
      notify({ message: 'Stale news', type: 'success' });
    });

    await user.click(within(screen.getByRole('contentinfo')).getByRole('link', { name: 'FAQ' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'Frequently Asked Questions' })).toBeInTheDocument();
    expect(screen.queryByText('Stale news')).not.toBeInTheDocument();
  });

  it('shows a notification passed in navigation state, then removes it from the state', async () => {
    const { router } = await renderHome();

    act(() => {
      router.navigate('/warranty', {
        state: { notification: { message: 'Password reset successfully', type: 'success' }, from: '/x' },
      });
    });

    expect(await screen.findByText('Password reset successfully')).toBeInTheDocument();
    await waitFor(() => {
      expect(router.location.state).toEqual({ from: '/x' });
    });
    expect(router.location.pathname).toBe('/warranty');
    // still shown after the state was cleaned (same page)
    expect(screen.getByText('Password reset successfully')).toBeInTheDocument();

    // going back and forth does not show it again
    act(() => {
      screen.getByRole('button', { name: 'Close notification' }).click();
    });
    act(() => {
      router.navigate('/');
    });
    await screen.findByRole('heading', { name: 'Built for the Long Range' });
    act(() => {
      router.navigate(-1);
    });
    await screen.findByRole('heading', { level: 1, name: 'Warranty' });
    expect(screen.queryByText('Password reset successfully')).not.toBeInTheDocument();
  });

  it('reads only well-formed notifications from navigation state', () => {
    expect(notificationFromState(null)).toBeNull();
    expect(notificationFromState({ notification: 'text' })).toBeNull();
    expect(notificationFromState({ notification: { message: '' } })).toBeNull();
    expect(notificationFromState({ notification: { message: 'Hi', type: 'error' } })).toEqual({
      message: 'Hi',
      type: 'error',
    });
    expect(notificationFromState({ notification: { message: 'Hi', type: 'odd' } })).toEqual({
      message: 'Hi',
      type: 'success',
    });
  });
});
