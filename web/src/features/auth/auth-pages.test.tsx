import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import '../../app/routes/login';
import '../../app/routes/profile/layout';
import { installFakeCaptcha } from '../../test/captcha';
import { signedInSession } from '../../test/fixtures';
import { renderRoute } from '../../test/render';
import { problem, server } from '../../test/server';

const authPage = (name: string, header: string) =>
  http.get(`/api/pages/${name}`, () =>
    HttpResponse.json({
      metaData: { title: `${header} | Test Arms`, description: header },
      backgroundImage: { src: `/images/${name}.svg`, alt: `${header} background` },
      header,
    }),
  );

async function tick(user: ReturnType<typeof userEvent.setup>, form: HTMLElement) {
  await user.click(await within(form).findByRole('checkbox', { name: "I'm not a robot" }));
}

describe('login page', () => {
  it('shows the header from the content service, validates, signs in and goes home', async () => {
    server.use(authPage('login', 'Welcome Back'));
    const bodies: unknown[] = [];
    server.use(
      http.post('/api/auth/login', async ({ request }) => {
        bodies.push(await request.json());
        return HttpResponse.json(signedInSession);
      }),
    );
    installFakeCaptcha();
    const user = userEvent.setup();
    const { router } = renderRoute('/login');

    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome Back' })).toBeInTheDocument();
    const form = screen.getByRole('form', { name: 'Sign in' });
    expect(within(form).getByRole('link', { name: 'Forgot Your Password?' })).toHaveAttribute(
      'href',
      '/forgot-password',
    );
    expect(within(form).getByRole('link', { name: /New to Test Arms\?/ })).toHaveAttribute('href', '/register');

    await user.click(within(form).getByRole('button', { name: 'Sign In' }));
    expect(await within(form).findByText('Email is required')).toBeInTheDocument();
    expect(within(form).getByText('Password is required')).toBeInTheDocument();
    expect(within(form).getByText('Captcha is required')).toBeInTheDocument();

    await user.type(within(form).getByLabelText('Email'), 'avery@example.test');
    await user.type(within(form).getByLabelText('Password'), 'correct horse');
    await tick(user, form);
    await user.click(within(form).getByRole('button', { name: 'Sign In' }));

    await waitFor(() => {
      expect(router.location.pathname).toBe('/');
    });
    expect(bodies).toEqual([{ email: 'avery@example.test', password: 'correct horse', captcha: 'test-captcha-token' }]);
    expect(await within(screen.getByRole('banner')).findByRole('link', { name: 'Account' })).toHaveAttribute(
      'href',
      '/profile',
    );
  });

  it('on failure resets the captcha and stays', async () => {
    server.use(
      http.post('/api/auth/login', () => problem(401, { title: 'Unauthorized', detail: 'Invalid credentials' })),
    );
    const captcha = installFakeCaptcha();
    const user = userEvent.setup();
    const { router } = renderRoute('/login');
    const form = await screen.findByRole('form', { name: 'Sign in' });
    await user.type(within(form).getByLabelText('Email'), 'avery@example.test');
    await user.type(within(form).getByLabelText('Password'), 'wrong');
    await tick(user, form);
    await user.click(within(form).getByRole('button', { name: 'Sign In' }));

    await waitFor(() => {
      expect(captcha.resets.some((count) => count === 1)).toBe(true);
    });
    expect(router.location.pathname).toBe('/login');
    expect(within(form).getByRole('checkbox', { name: "I'm not a robot" })).not.toBeChecked();
  });

  it('can show and hide the password', async () => {
    const user = userEvent.setup();
    renderRoute('/login');
    const form = await screen.findByRole('form', { name: 'Sign in' });
    const password = within(form).getByLabelText('Password');
    expect(password).toHaveAttribute('type', 'password');
    await user.click(within(form).getByRole('button', { name: 'Show Password' }));
    expect(password).toHaveAttribute('type', 'text');
    await user.click(within(form).getByRole('button', { name: 'Hide Password' }));
    expect(password).toHaveAttribute('type', 'password');
  });
});

describe('register page', () => {
  it('applies the password rules', async () => {
    installFakeCaptcha();
    const user = userEvent.setup();
    renderRoute('/register');
    const form = await screen.findByRole('form', { name: 'Create an account' });
    expect(within(form).getByRole('checkbox', { name: 'Sign Up for Newsletter' })).not.toBeChecked();
    expect(within(form).getByRole('link', { name: 'I Have an account' })).toHaveAttribute('href', '/login');

    await user.type(within(form).getByLabelText('Password'), 'short');
    await user.type(within(form).getByLabelText('Confirm Password'), 'different');
    await user.click(within(form).getByRole('button', { name: 'Create Account' }));

    expect(await within(form).findByText('Password must be at least 8 characters long')).toBeInTheDocument();
    expect(within(form).getByText('Passwords do not match')).toBeInTheDocument();
    expect(within(form).getByText('First Name is required')).toBeInTheDocument();
  });

  it('sends a signed-in user to the account area', async () => {
    server.use(http.get('/api/session', () => HttpResponse.json(signedInSession)));
    const { router } = renderRoute('/register');
    await waitFor(() => {
      expect(router.location.pathname).toBe('/profile');
    });
  });
});

describe('forgot and reset password pages', () => {
  it("shows the server's message on the login page after a reset request", async () => {
    server.use(
      http.post('/api/auth/forgot-password', () =>
        HttpResponse.json({ message: 'Check your e-mail for a reset link' }),
      ),
    );
    installFakeCaptcha();
    const user = userEvent.setup();
    const { router } = renderRoute('/forgot-password');
    const form = await screen.findByRole('form', { name: 'Reset your password' });
    await user.type(within(form).getByLabelText('Email'), 'avery@example.test');
    await tick(user, form);
    await user.click(within(form).getByRole('button', { name: 'Reset' }));

    expect(await screen.findByText('Check your e-mail for a reset link')).toBeInTheDocument();
    expect(router.location.pathname).toBe('/login');
  });

  it("shows 'Something went wrong, please try again later' when the request fails", async () => {
    server.use(http.post('/api/auth/forgot-password', () => new HttpResponse(null, { status: 502 })));
    installFakeCaptcha();
    const user = userEvent.setup();
    renderRoute('/forgot-password');
    const form = await screen.findByRole('form', { name: 'Reset your password' });
    await user.type(within(form).getByLabelText('Email'), 'avery@example.test');
    await tick(user, form);
    await user.click(within(form).getByRole('button', { name: 'Reset' }));
    expect(await screen.findByText('Something went wrong, please try again later')).toBeInTheDocument();
  });

  it("defaults the reset header to 'Reset Password' and sends the token from the link", async () => {
    const bodies: unknown[] = [];
    server.use(
      http.post('/api/auth/reset-password', async ({ request }) => {
        bodies.push(await request.json());
        return HttpResponse.json({ message: null });
      }),
    );
    installFakeCaptcha();
    const user = userEvent.setup();
    const { router } = renderRoute('/auth/reset-password?token=abc123');
    expect(await screen.findByRole('heading', { level: 1, name: 'Reset Password' })).toBeInTheDocument();
    const form = screen.getByRole('form', { name: 'Set a new password' });
    await user.type(within(form).getByLabelText('New Password'), 'new-password-1');
    await user.type(within(form).getByLabelText('Confirm Password'), 'new-password-1');
    await tick(user, form);
    await user.click(within(form).getByRole('button', { name: 'Set Password' }));

    expect(await screen.findByText('Password reset successfully')).toBeInTheDocument();
    expect(router.location.pathname).toBe('/login');
    expect(bodies).toEqual([
      { password: 'new-password-1', confirmPassword: 'new-password-1', token: 'abc123', captcha: 'test-captcha-token' },
    ]);
  });
});
