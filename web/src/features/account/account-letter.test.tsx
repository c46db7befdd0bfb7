import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Profile } from '../../api/types';
import '../../app/routes/login';
import { notificationStore } from '../../components/notifications/store';
import { installFakeCaptcha } from '../../test/captcha';
import { defined } from '../../test/defined';
import { profile, signedInHandlers, summitOrder } from '../../test/fixtures/account';
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

describe('orders on a phone, to the letter (issue 47)', () => {
  // jsdom applies no stylesheet: the markup is checked here, the phone rules in account.css
  const css = readFileSync(join(process.cwd(), 'src/features/account/account.css'), 'utf8');
  const phone = /@media \(max-width: 900px\) \{([\s\S]*?)\n\}/.exec(css)?.[1] ?? '';

  it('the order list has a card per order (Order, Date, Payment Status, Total), shown instead of the table on phones', async () => {
    renderRoute('/profile/orders');
    await heading('My Orders');
    const cards = screen.getAllByRole('list').find((list) => list.classList.contains('order-cards'));
    const card = defined(within(defined(cards, 'order cards')).getAllByRole('listitem')[0], 'order card');
    expect([...card.querySelectorAll('dt')].map((term) => term.textContent)).toEqual([
      'Order',
      'Date',
      'Payment Status',
      'Total',
    ]);
    expect(within(card).getByRole('link')).toHaveAttribute('href', `/profile/orders/${String(summitOrder.id)}`);
    expect(card).toHaveTextContent('01/09/2025');
    expect(phone).toMatch(/\.orders-table\s*\{\s*display:\s*none;/);
    expect(phone).toMatch(/\.order-cards\s*\{\s*display:\s*grid;/);
  });

  it("the order's unit price is hidden on phones", async () => {
    server.use(http.get('/api/orders/:id', () => HttpResponse.json(summitOrder)));
    renderRoute(`/profile/orders/${String(summitOrder.id)}`);
    const table = await screen.findByRole('table', {}, { timeout: 4000 });
    const price = within(table).getByRole('columnheader', { name: 'Price' });
    expect(price).toHaveClass('hide-on-mobile');
    const row = defined(within(table).getAllByRole('row')[1], 'order line');
    const column = [...(price.parentElement?.children ?? [])].indexOf(price);
    expect(row.children[column]).toHaveClass('hide-on-mobile');
    expect(phone).toMatch(/\.hide-on-mobile\s*\{\s*display:\s*none;/);
  });
});

describe('the discount programs’ texts, to the letter (issue 47)', () => {
  it('Pro Deal: what it is, eligibility, documents and terms', async () => {
    renderRoute('/profile/pro-deal');
    await heading('Pro Deal');
    expect(
      screen.getByText(/special pricing to professionals of the firearms and outdoor industry/),
    ).toBeInTheDocument();
    expect(
      screen.getByText('Dealers, FFLs and retail employees are ineligible for the Pro Deal program.'),
    ).toBeInTheDocument();
    const terms = screen.getByRole('heading', { name: 'Terms' }).nextElementSibling as HTMLElement;
    expect(
      within(terms)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual([
      'Pro Deal purchases are for personal use only.',
      'No resale of Pro Deal purchases.',
      'All sales are final.',
      'Orders may be rejected if an item is out of stock.',
      'The program may be changed at any time.',
      'Abuse of the program results in the loss of Pro Deal privileges.',
    ]);
  });

  it('LE/MIL: what it is, how it is verified, and the terms', async () => {
    renderRoute('/profile/le-mil');
    await heading('LE / MIL Verification');
    expect(
      screen.getByText(/Active and retired law enforcement officers and members of the military save/),
    ).toBeInTheDocument();
    const terms = screen.getByRole('heading', { name: 'Terms' }).nextElementSibling as HTMLElement;
    expect(within(terms).getAllByRole('listitem')).toHaveLength(3);
    expect(terms).toHaveTextContent('LE / MIL purchases are for personal use only and may not be resold.');
  });
});
