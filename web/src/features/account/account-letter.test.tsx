import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Profile } from '../../api/types';
import '../../app/routes/login';
import { notificationStore } from '../../components/notifications/store';
import { installFakeCaptcha } from '../../test/captcha';
import { profile, signedInHandlers } from '../../test/fixtures/account';
import { renderRoute } from '../../test/render';
import { problem, server } from '../../test/server';

/* Issue 47, item 8: the account and auth requirements that had no test (companion spec §2.6, §2.7, §8). */

vi.setConfig({ testTimeout: 20_000 });
configure({ asyncUtilTimeout: 5_000 });

let account: Profile;

beforeEach(() => {
  account = structuredClone(profile);
  server.use(...signedInHandlers(() => account));
});

const heading = (name: string) => screen.findByRole('heading', { level: 1, name }, { timeout: 4000 });

describe('the address form, to the letter (issue 47)', () => {
  it("offers the state list of the country chosen: Canada's provinces, then the US states again", async () => {
    const user = userEvent.setup({ delay: null });
    renderRoute('/profile/address-book/new');
    await heading('Add New Address');
    const form = screen.getByRole('form', { name: 'Address' });
    const state = () => within(form).getByRole('combobox', { name: 'State' });
    const options = () =>
      within(state())
        .getAllByRole('option')
        .map((option) => option.textContent);
    expect(options()).toContain('Idaho');
    await user.selectOptions(within(form).getByRole('combobox', { name: 'Country' }), 'Canada');
    await waitFor(() => {
      expect(options()).toContain('Ontario');
    });
    expect(options()).toHaveLength(14); // the prompt and 13 provinces and territories
    expect(options()).not.toContain('Idaho');
    await user.selectOptions(state(), 'British Columbia');
    expect(state()).toHaveValue('BC');
    await user.selectOptions(within(form).getByRole('combobox', { name: 'Country' }), 'United States');
    await waitFor(() => {
      expect(options()).toContain('Idaho');
    });
    expect(state()).toHaveValue('');
  });

  it("a failed save goes through the shared handler: one 'Error: …' toast, the form kept", async () => {
    server.use(
      http.post('/api/account/addresses', () =>
        problem(502, { title: 'Bad Gateway', detail: 'The account service failed', code: 'upstream_error' }),
      ),
    );
    const errors: string[] = [];
    const stop = notificationStore.subscribe(() => {
      const shown = notificationStore.get();
      if (shown?.type === 'error') errors.push(shown.message);
    });
    try {
      const user = userEvent.setup({ delay: null });
      const { router } = renderRoute('/profile/address-book/new');
      await heading('Add New Address');
      const form = screen.getByRole('form', { name: 'Address' });
      await user.type(within(form).getByLabelText('Address Name'), 'Range');
      await user.type(within(form).getByLabelText('Street Address'), '1 Range Rd');
      await user.type(within(form).getByLabelText('City'), 'Meridian');
      await user.selectOptions(within(form).getByRole('combobox', { name: 'State' }), 'Idaho');
      await user.type(within(form).getByLabelText('Zip'), '83642');
      await user.click(within(form).getByRole('button', { name: 'Save' }));
      await waitFor(() => {
        expect(errors).toEqual(['Error: The account service failed']);
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(errors).toHaveLength(1);
      expect(router.location.pathname).toBe('/profile/address-book/new');
      expect(within(form).getByLabelText('Address Name')).toHaveValue('Range');
    } finally {
      stop();
    }
  });
});

describe('Edit Information, to the letter (issue 47)', () => {
  it('has no validation: empty names and phone are sent as they are', async () => {
    const updates: unknown[] = [];
    server.use(
      http.put('/api/account', async ({ request }) => {
        const body = (await request.json()) as Record<string, string>;
        updates.push(body);
        return HttpResponse.json({ ...account, ...body });
      }),
    );
    const user = userEvent.setup({ delay: null });
    renderRoute('/profile/details');
    await heading('Edit Information');
    const form = screen.getByRole('form', { name: 'Edit Information' });
    for (const field of ['First Name', 'Last Name', 'Phone']) await user.clear(within(form).getByLabelText(field));
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    await waitFor(() => {
      expect(updates).toEqual([{ firstName: '', lastName: '', phoneNumber: '' }]);
    });
    expect(within(form).queryByText(/required|invalid/i)).not.toBeInTheDocument();
  });
});

describe('the forgot-password form, to the letter (issue 47)', () => {
  it('has the e-mail, the captcha, Reset and Go Back; asks for both before sending', async () => {
    server.use(...signedInHandlers(() => account));
    server.use(
      http.get('/api/session', () => HttpResponse.json({ signedIn: false, guest: false, user: null, expiresAt: null })),
    );
    const sent: unknown[] = [];
    server.use(
      http.post('/api/auth/forgot-password', async ({ request }) => {
        sent.push(await request.json());
        return HttpResponse.json({ message: 'Check your e-mail' });
      }),
    );
    installFakeCaptcha();
    const user = userEvent.setup({ delay: null });
    const { router } = renderRoute('/forgot-password');
    const form = await screen.findByRole('form', { name: 'Reset your password' });
    expect(within(form).getByLabelText('Email')).toBeInTheDocument();
    expect(within(form).getByRole('link', { name: 'Go Back' })).toHaveAttribute('href', '/login');
    await user.click(within(form).getByRole('button', { name: 'Reset' }));
    expect(await within(form).findByText('Email is required')).toBeInTheDocument();
    expect(await within(form).findByText('Captcha is required')).toBeInTheDocument();
    expect(sent).toEqual([]);

    await user.click(within(form).getByRole('link', { name: 'Go Back' }));
    await waitFor(() => {
      expect(router.location.pathname).toBe('/login');
    });
  });
});
