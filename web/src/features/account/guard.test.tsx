import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import '../../app/routes/login';
import '../../app/routes/profile/layout';
import '../../app/routes/profile/orders';
import { paths, safeReturnPath } from '../../lib/paths';
import { installFakeCaptcha } from '../../test/captcha';
import { anonymousSessionFixture, signedInSession } from '../../test/fixtures';
import { profile } from '../../test/fixtures/account';
import { createTestQueryClient, renderRoute } from '../../test/render';
import { problem, server } from '../../test/server';
import { installSessionExpiry } from '../../app/query-client';
import { SESSION_EXPIRED_MESSAGE } from '../auth';
import { backPath } from './components/account-layout';

// whole journeys through the real route table, typed by a user: slow on a busy machine
vi.setConfig({ testTimeout: 20_000 });
configure({ asyncUtilTimeout: 5_000 });

describe('the account guard', () => {
  it('sends a signed-out visitor to sign-in and back to the page asked for', async () => {
    let signedIn = false;
    server.use(
      http.get('/api/session', () => HttpResponse.json(signedIn ? signedInSession : anonymousSessionFixture)),
      http.post('/api/auth/login', () => {
        signedIn = true;
        return HttpResponse.json(signedInSession);
      }),
      http.get('/api/account', () => (signedIn ? HttpResponse.json(profile) : problem(401, { code: 'unauthorized' }))),
    );
    installFakeCaptcha();
    const user = userEvent.setup({ delay: null });
    const { router } = renderRoute('/profile/orders?page=2');

    const form = await screen.findByRole('form', { name: 'Sign in' });
    expect(router.location.pathname).toBe('/login');
    expect(router.location.search).toBe(`?redirectTo=${encodeURIComponent('/profile/orders?page=2')}`);

    await user.type(within(form).getByLabelText('Email'), 'avery@example.test');
    await user.type(within(form).getByLabelText('Password'), 'Password123!');
    await user.click(within(form).getByRole('checkbox', { name: "I'm not a robot" }));
    await user.click(within(form).getByRole('button', { name: 'Sign In' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'My Orders' })).toBeInTheDocument();
    expect(router.location.pathname).toBe('/profile/orders');
    expect(router.location.search).toBe('?page=2');
    expect(within(screen.getByRole('table')).getByRole('link', { name: '100001' })).toHaveAttribute(
      'href',
      '/profile/orders/100001',
    );
  });

  it('only returns to paths of this site', () => {
    expect(paths.login('/profile/le-mil?code=1')).toBe('/login?redirectTo=%2Fprofile%2Fle-mil%3Fcode%3D1');
    expect(safeReturnPath('/profile')).toBe('/profile');
    expect(safeReturnPath('//evil.example/x')).toBeNull();
    expect(safeReturnPath('/\\evil.example')).toBeNull();
    expect(safeReturnPath('https://evil.example')).toBeNull();
    expect(safeReturnPath(null)).toBeNull();
  });

  it('shows the side menu with the current section marked, and a Back link one level up on child pages', async () => {
    server.use(
      http.get('/api/session', () => HttpResponse.json(signedInSession)),
      http.get('/api/account', () => HttpResponse.json(profile)),
    );
    renderRoute('/profile/orders');
    const menu = await screen.findByRole('navigation', { name: 'Account' });
    expect(
      within(menu)
        .getAllByRole('link')
        .map((link) => link.textContent),
    ).toEqual(['My Account', 'My Orders', 'Address Book', 'Discount Programs']);
    expect(within(menu).getByRole('button', { name: 'Logout' })).toBeInTheDocument();
    expect(within(menu).getByRole('link', { name: 'My Orders' })).toHaveAttribute('aria-current', 'page');
    expect(within(menu).getByRole('link', { name: 'My Account' })).not.toHaveAttribute('aria-current');
    expect(screen.getByRole('link', { name: 'Back' })).toHaveAttribute('href', '/profile');

    expect(backPath('/profile')).toBeNull();
    expect(backPath('/profile/orders/7')).toBe('/profile/orders');
    expect(backPath('/profile/address-book/new')).toBe('/profile/address-book');
    expect(backPath('/profile/pro-deal')).toBe('/profile/discount-programs');
    expect(backPath('/profile/update-password/')).toBe('/profile');
  });

  it('logs out: home, the session ended, the header updated', async () => {
    let signedIn = true;
    const logouts: string[] = [];
    server.use(
      http.get('/api/session', () => HttpResponse.json(signedIn ? signedInSession : anonymousSessionFixture)),
      http.get('/api/account', () => HttpResponse.json(profile)),
      http.post('/api/auth/logout', ({ request }) => {
        logouts.push(request.headers.get('X-CSRF') ?? '');
        signedIn = false;
        return new HttpResponse(null, { status: 204 });
      }),
    );
    const user = userEvent.setup({ delay: null });
    const { router } = renderRoute('/profile');
    await user.click(await screen.findByRole('button', { name: 'Logout' }));

    await waitFor(() => {
      expect(within(screen.getByRole('banner')).getByRole('link', { name: 'Sign in' })).toHaveAttribute(
        'href',
        '/login',
      );
    });
    expect(router.location.pathname).toBe('/');
    expect(logouts).toEqual(['1']);
  });
});

describe('an expired session', () => {
  it('signs the shopper out once, says so, and the account area asks for sign-in (no loop)', async () => {
    let accountCalls = 0;
    server.use(
      http.get('/api/session', () => HttpResponse.json(signedInSession)),
      http.get('/api/account', () => {
        accountCalls += 1;
        return problem(401, { title: 'Unauthorized', detail: 'Your session has expired', code: 'session_expired' });
      }),
    );
    const queryClient = createTestQueryClient();
    const uninstall = installSessionExpiry(queryClient);
    const { router } = renderRoute('/profile/address-book', { queryClient });

    expect(await screen.findByRole('form', { name: 'Sign in' })).toBeInTheDocument();
    expect(router.location.pathname).toBe('/login');
    expect(router.location.search).toBe('?redirectTo=%2Fprofile%2Faddress-book');
    expect(await screen.findByText(SESSION_EXPIRED_MESSAGE)).toBeInTheDocument();
    expect(within(screen.getByRole('banner')).getByRole('link', { name: 'Sign in' })).toBeInTheDocument();
    expect(queryClient.getQueryData(['session', 'current'])).toMatchObject({ signedIn: false });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(accountCalls).toBe(1);
    uninstall();
  });
});
