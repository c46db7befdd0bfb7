import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Address, Profile } from '../../api/types';
import { installFakeCaptcha } from '../../test/captcha';
import { defined } from '../../test/defined';
import { cabinAddress, officeAddress, profile, signedInHandlers, summitOrder } from '../../test/fixtures/account';
import { renderRoute } from '../../test/render';
import { problem, server } from '../../test/server';

// whole journeys through the real route table, typed by a user: slow on a busy machine
vi.setConfig({ testTimeout: 20_000 });
configure({ asyncUtilTimeout: 5_000 });

let account: Profile;

beforeEach(() => {
  account = structuredClone(profile);
  server.use(...signedInHandlers(() => account));
});

const slow = { timeout: 4000 };

async function heading(name: string) {
  return screen.findByRole('heading', { level: 1, name }, slow);
}

describe('My Account', () => {
  it('shows contact, newsletter, verification and the default addresses', async () => {
    renderRoute('/profile');
    await heading('My Account');
    const contact = screen.getByRole('region', { name: 'Contact Information' });
    expect(contact).toHaveTextContent('Avery Shooter');
    expect(contact).toHaveTextContent('avery@example.test');
    expect(contact).toHaveTextContent('(208) 555-0142');
    expect(within(contact).getByRole('link', { name: 'Edit' })).toHaveAttribute('href', '/profile/details');
    expect(within(contact).getByRole('link', { name: 'Change Password' })).toHaveAttribute(
      'href',
      '/profile/update-password',
    );
    const newsletter = screen.getByRole('region', { name: 'Newsletters' });
    expect(newsletter).toHaveTextContent('You are subscribed to our newsletter.');
    expect(within(newsletter).getByRole('link', { name: 'Edit' })).toHaveAttribute('href', '/profile/newsletter');
    expect(screen.getByRole('region', { name: 'Email Verification' })).toHaveTextContent('Verified');
    expect(screen.queryByRole('button', { name: 'Resend Verification Link' })).not.toBeInTheDocument();
    const shipping = screen.getByRole('region', { name: 'Default shipping Address' });
    expect(shipping).toHaveTextContent('418 Harrison Blvd');
    expect(within(shipping).getByRole('link', { name: 'Change shipping Address' })).toHaveAttribute(
      'href',
      '/profile/address-book/11',
    );
    expect(screen.getByRole('region', { name: 'Default billing Address' })).toHaveTextContent('Talon Works');
    expect(screen.getByRole('link', { name: 'Manage Addresses' })).toHaveAttribute('href', '/profile/address-book');
  });

  it('resends the verification link, with the spec texts for success and failure', async () => {
    account.isEmailVerified = false;
    account.isSubscribedToNewsletter = false;
    account.phoneNumber = null;
    let calls = 0;
    server.use(
      http.post('/api/auth/resend-verification', () => {
        calls += 1;
        return calls === 1
          ? HttpResponse.json({ message: 'sent' })
          : calls === 2
            ? problem(400, { title: 'Bad Request', detail: 'Your email address is already verified' })
            : HttpResponse.json({ oops: true }, { status: 500 });
      }),
    );
    const user = userEvent.setup({ delay: null });
    renderRoute('/profile/account-information');
    await heading('Account Information');
    expect(screen.getByRole('region', { name: 'Newsletters' })).toHaveTextContent(
      'You arent subscribed to our newsletter.',
    );
    expect(screen.getByRole('region', { name: 'Contact Information' })).not.toHaveTextContent('(208)');
    const resend = screen.getByRole('button', { name: 'Resend Verification Link' });

    await user.click(resend);
    expect(await screen.findByText('A verification link was sent to your email')).toBeInTheDocument();
    await user.click(resend);
    expect(await screen.findByText('Your email address is already verified')).toBeInTheDocument();
    await user.click(resend);
    expect(
      await screen.findByText('There was an issue resending the verification link, please try again later.'),
    ).toBeInTheDocument();
  });
});

describe('address book', () => {
  it('lists the defaults and the other entries, and deletes one after confirmation', async () => {
    const deleted: string[] = [];
    server.use(
      http.delete('/api/account/addresses/:id', ({ params }) => {
        deleted.push(String(params.id));
        account.addresses = account.addresses.filter((address) => String(address.id) !== params.id);
        return new HttpResponse(null, { status: 204 });
      }),
    );
    const user = userEvent.setup({ delay: null });
    renderRoute('/profile/address-book');
    await heading('Address Book');
    expect(screen.getByRole('heading', { name: 'Default Addresses' })).toBeInTheDocument();
    const billing = screen.getByRole('region', { name: 'Default billing Address' });
    expect(billing).toHaveTextContent('Avery Shooter');
    expect(billing).toHaveTextContent('100 Main St');
    expect(billing).toHaveTextContent('Suite 4');
    expect(billing).toHaveTextContent('Austin, TX 78701');
    expect(billing).toHaveTextContent('United States');
    expect(within(billing).getByRole('link', { name: '(512) 555-0100' })).toHaveAttribute('href', 'tel:5125550100');
    expect(within(billing).getByRole('link', { name: '(512) 555-0101' })).toHaveAttribute('href', 'tel:5125550101');
    expect(billing).toHaveTextContent('T: (512) 555-0100');
    expect(billing).toHaveTextContent('F: (512) 555-0101');
    expect(within(billing).getByRole('link', { name: 'Change billing Address' })).toHaveAttribute(
      'href',
      '/profile/address-book/12',
    );

    expect(screen.getByRole('heading', { name: 'Additional Address Entries' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Edit Address Cabin' })).toHaveAttribute(
      'href',
      '/profile/address-book/13',
    );
    expect(screen.getByRole('link', { name: 'Add New Address' })).toHaveAttribute('href', '/profile/address-book/new');

    // cancelling deletes nothing
    await user.click(screen.getByRole('button', { name: 'Delete Address Cabin' }));
    const dialog = screen.getByRole('dialog', { name: 'Delete Address' });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(deleted).toEqual([]);

    await user.click(screen.getByRole('button', { name: 'Delete Address Cabin' }));
    await user.click(
      within(screen.getByRole('dialog', { name: 'Delete Address' })).getByRole('button', { name: 'Delete' }),
    );
    await waitFor(() => {
      expect(screen.queryByRole('button', { name: 'Delete Address Cabin' })).not.toBeInTheDocument();
    });
    expect(deleted).toEqual(['13']);
    expect(screen.getByText('You have no other address entries in your address book.')).toBeInTheDocument();
  });

  it('says so when empty', async () => {
    account.addresses = [];
    renderRoute('/profile/address-book');
    await heading('Address Book');
    expect(screen.getByRole('heading', { name: 'No addresses found' })).toBeInTheDocument();
    expect(screen.getByText('Add a new address to your address book')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Add New Address' })).toBeInTheDocument();
  });
});

describe('address form', () => {
  it('validates, formats the phone, creates the address and returns to the address book', async () => {
    const created: unknown[] = [];
    server.use(
      http.post('/api/account/addresses', async ({ request }) => {
        const body = (await request.json()) as Address;
        created.push(body);
        // like the sandbox: a new default takes the flag from the others
        const others = account.addresses.map((address) => ({
          ...address,
          isDefaultShipping: address.isDefaultShipping && body.isDefaultShipping !== true,
        }));
        account.addresses = [
          ...others,
          {
            ...cabinAddress,
            id: 99,
            addressName: body.addressName,
            addressLine1: body.addressLine1,
            isDefaultShipping: true,
          },
        ];
        return HttpResponse.json({ ...cabinAddress, id: 99 }, { status: 201 });
      }),
    );
    const user = userEvent.setup({ delay: null });
    const { router } = renderRoute('/profile/address-book/new');
    await heading('Add New Address');
    const form = screen.getByRole('form', { name: 'Address' });
    expect(within(form).getByRole('group', { name: 'Contact Information' })).toBeInTheDocument();
    expect(within(form).getByRole('group', { name: 'Address' })).toBeInTheDocument();
    await user.clear(within(form).getByLabelText('First Name'));
    await user.clear(within(form).getByLabelText('Phone'));
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    for (const message of [
      'Address Name is required',
      'First Name is required',
      'Phone is required',
      'Street Address is required',
      'City is required',
      'State is required',
      'Zip is required',
    ]) {
      expect(await within(form).findByText(message)).toBeInTheDocument();
    }
    expect(within(form).queryByText('Last Name is required')).not.toBeInTheDocument();
    expect(within(form).queryByText(/Company is required|Fax is required/)).not.toBeInTheDocument();
    // later addresses do not take the defaults over unasked
    expect(within(form).getByRole('checkbox', { name: 'Use as my default billing address' })).not.toBeChecked();

    await user.type(within(form).getByLabelText('Address Name'), 'Range');
    await user.type(within(form).getByLabelText('First Name'), 'Avery');
    await user.type(within(form).getByLabelText('Phone'), '2085550199');
    expect(within(form).getByLabelText('Phone')).toHaveValue('(208) 555-0199');
    await user.type(within(form).getByLabelText('Fax'), '1-208-555-0198');
    expect(within(form).getByLabelText('Fax')).toHaveValue('1 (208) 555-0198');
    await user.type(within(form).getByLabelText('Street Address'), '1 Range Rd');
    await user.type(within(form).getByLabelText('City'), 'Meridian');
    expect(within(form).getByRole('combobox', { name: 'Country' })).toHaveValue('United States');
    await user.selectOptions(within(form).getByRole('combobox', { name: 'State' }), 'Idaho');
    await user.type(within(form).getByLabelText('Zip'), '83642');
    await user.click(within(form).getByRole('checkbox', { name: 'Use as my default shipping address' }));
    await user.click(within(form).getByRole('button', { name: 'Save' }));

    await waitFor(() => {
      expect(router.location.pathname).toBe('/profile/address-book');
    });
    expect(created).toEqual([
      {
        addressName: 'Range',
        firstName: 'Avery',
        lastName: 'Shooter',
        company: null,
        mainContact: '(208) 555-0199',
        faxContact: '1 (208) 555-0198',
        addressContact: null,
        addressType: 10,
        isDefaultShipping: true,
        isDefaultBilling: false,
        addressLine1: '1 Range Rd',
        addressLine2: null,
        city: 'Meridian',
        state: 'ID',
        postalCode: '83642',
        country: 'United States',
        residential: true,
      },
    ]);
    // the new default shipping address, reloaded
    await waitFor(() => {
      expect(screen.getByRole('region', { name: 'Default shipping Address' })).toHaveTextContent('1 Range Rd');
    });
  });

  it('edits an address, and Cancel returns to where the form was opened from', async () => {
    const updates: [string, unknown][] = [];
    server.use(
      http.put('/api/account/addresses/:id', async ({ params, request }) => {
        updates.push([String(params.id), await request.json()]);
        return HttpResponse.json(officeAddress);
      }),
    );
    const user = userEvent.setup({ delay: null });
    const { router } = renderRoute('/profile');
    await heading('My Account');
    await user.click(screen.getByRole('link', { name: 'Change billing Address' }));
    await heading('Edit Address');
    const form = screen.getByRole('form', { name: 'Address' });
    expect(within(form).getByLabelText('Company')).toHaveValue('Talon Works');
    expect(within(form).getByRole('combobox', { name: 'State' })).toHaveValue('TX');
    expect(within(form).getByRole('checkbox', { name: 'Use as my default billing address' })).toBeChecked();
    await user.click(within(form).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => {
      expect(router.location.pathname).toBe('/profile');
    });
    expect(updates).toEqual([]);

    await user.click(await screen.findByRole('link', { name: 'Change billing Address' }));
    const again = await screen.findByRole('form', { name: 'Address' });
    await user.clear(within(again).getByLabelText('City'));
    await user.type(within(again).getByLabelText('City'), 'Round Rock');
    await user.click(within(again).getByRole('button', { name: 'Save' }));
    await waitFor(() => {
      expect(router.location.pathname).toBe('/profile');
    });
    expect(updates).toHaveLength(1);
    expect(updates[0]?.[0]).toBe('12');
    expect(updates[0]?.[1]).toMatchObject({ city: 'Round Rock', company: 'Talon Works', isDefaultBilling: true });
  });
});

describe('orders', () => {
  it('lists the orders and shows one with its lines and summary', async () => {
    server.use(http.get('/api/orders/:id', () => HttpResponse.json(summitOrder)));
    const user = userEvent.setup({ delay: null });
    renderRoute('/profile/orders');
    await heading('My Orders');
    const table = screen.getByRole('table');
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((cell) => cell.textContent),
    ).toEqual(['Order', 'Date', 'Payment Status', 'Total']);
    const row = within(table).getAllByRole('row')[1];
    expect(row).toHaveTextContent('01/09/2025');
    expect(row).toHaveTextContent('Processing');
    expect(row).toHaveTextContent('$981.23');

    await user.click(within(table).getByRole('link', { name: '100001' }));
    await heading('Order 100001');
    const lines = await screen.findByRole('table');
    expect(
      within(lines)
        .getAllByRole('columnheader')
        .map((cell) => cell.textContent),
    ).toEqual(['Product', 'Price', 'QTY', 'Total']);
    expect(within(lines).getByRole('link', { name: 'Summit LR' })).toHaveAttribute('href', '/product/summit%20lr');
    expect(lines).toHaveTextContent('6.5 Creedmoor - 24" - Black');
    expect(lines).toHaveTextContent('$449.99');
    expect(lines).toHaveTextContent('$899.98');
    const summary = defined(document.querySelector('.order-summary'), 'summary');
    expect(summary).toHaveTextContent('Subtotal$924.98');
    expect(summary).toHaveTextContent('ShippingFree');
    expect(summary).toHaveTextContent('Tax$56.25');
    expect(summary).toHaveTextContent('Total$981.23');
  });

  it('says so when there are none', async () => {
    account.orders = [];
    renderRoute('/profile/orders');
    await heading('My Orders');
    expect(screen.getByText('You have placed no orders')).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });
});

describe('Edit Information and Update Password', () => {
  it('saves names and a formatted phone; the e-mail is read-only', async () => {
    const updates: unknown[] = [];
    server.use(
      http.put('/api/account', async ({ request }) => {
        const body = (await request.json()) as Record<string, string>;
        updates.push(body);
        account = { ...account, ...body, fullName: `${String(body.firstName)} ${String(body.lastName)}` };
        return HttpResponse.json(account);
      }),
    );
    const user = userEvent.setup({ delay: null });
    const { router } = renderRoute('/profile/details');
    await heading('Edit Information');
    const form = screen.getByRole('form', { name: 'Edit Information' });
    expect(within(form).getByLabelText('Email')).toHaveAttribute('readonly');
    expect(within(form).getByLabelText('Email')).toHaveValue('avery@example.test');
    await user.clear(within(form).getByLabelText('Phone'));
    await user.type(within(form).getByLabelText('Phone'), '5125550123');
    expect(within(form).getByLabelText('Phone')).toHaveValue('(512) 555-0123');
    await user.clear(within(form).getByLabelText('Last Name'));
    await user.type(within(form).getByLabelText('Last Name'), 'Marksman');
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    await waitFor(() => {
      expect(router.location.pathname).toBe('/profile');
    });
    expect(updates).toEqual([{ firstName: 'Avery', lastName: 'Marksman', phoneNumber: '(512) 555-0123' }]);
    expect(await screen.findByText('Your account information has been saved.')).toBeInTheDocument();
    expect(await screen.findByText(/Avery Marksman/)).toBeInTheDocument();
  });

  it('checks the password rules, then shows the success text or the server message', async () => {
    const bodies: unknown[] = [];
    server.use(
      http.post('/api/auth/change-password', async ({ request }) => {
        const body = (await request.json()) as { currentPassword: string };
        bodies.push(body);
        return body.currentPassword === 'wrong'
          ? problem(400, {
              title: 'Bad Request',
              detail: 'Current password is incorrect',
              errors: { currentPassword: 'Current password is incorrect' },
            })
          : HttpResponse.json({ message: 'ok' });
      }),
    );
    const user = userEvent.setup({ delay: null });
    renderRoute('/profile/update-password');
    await heading('Update Password');
    const form = screen.getByRole('form', { name: 'Update Password' });
    const current = within(form).getByLabelText('Current Password');
    const next = within(form).getByLabelText('New Password');
    const confirm = within(form).getByLabelText('Confirm Password');
    expect(within(form).getAllByRole('button', { name: 'Show Password' })).toHaveLength(3);

    await user.type(current, 'wrong');
    await user.type(next, 'short');
    await user.type(confirm, 'other');
    await user.click(within(form).getByRole('button', { name: 'Update Password' }));
    expect(await within(form).findByText('Password must be at least 8 characters long')).toBeInTheDocument();
    await user.clear(next);
    await user.type(next, 'NewPassword1');
    await user.click(within(form).getByRole('button', { name: 'Update Password' }));
    expect(await within(form).findByText('Passwords do not match')).toBeInTheDocument();
    expect(bodies).toEqual([]);

    await user.clear(confirm);
    await user.type(confirm, 'NewPassword1');
    await user.click(within(form).getByRole('button', { name: 'Update Password' }));
    expect(await screen.findByRole('alert', {}, slow)).toHaveTextContent('Current password is incorrect');

    await user.clear(current);
    await user.type(current, 'Password123!');
    await user.click(within(form).getByRole('button', { name: 'Update Password' }));
    expect(await screen.findByText('Password updated successfully')).toBeInTheDocument();
    expect(current).toHaveValue('');
    expect(bodies).toHaveLength(2);
  });
});

describe('newsletter preference', () => {
  it('unsubscribes and subscribes with the captcha, reloading the status; a failure resets the captcha', async () => {
    const calls: [string, unknown][] = [];
    let failNext = false;
    server.use(
      http.post('/api/newsletter/unsubscribe', async ({ request }) => {
        calls.push(['unsubscribe', await request.text()]);
        account.isSubscribedToNewsletter = false;
        return HttpResponse.json({ message: 'You have been unsubscribed from the newsletter' });
      }),
      http.post('/api/newsletter/subscribe', async ({ request }) => {
        calls.push(['subscribe', await request.json()]);
        if (failNext) return problem(400, { title: 'Bad Request', detail: 'Captcha verification failed' });
        account.isSubscribedToNewsletter = true;
        return HttpResponse.json({ message: 'You have been subscribed to the newsletter' });
      }),
    );
    const captcha = installFakeCaptcha();
    const user = userEvent.setup({ delay: null });
    renderRoute('/profile/newsletter');
    await heading('Newsletter Subscription');
    let form = screen.getByRole('form', { name: 'Newsletter Subscription' });
    expect(within(form).getByRole('checkbox', { name: 'General Subscription' })).toBeChecked();

    await user.click(within(form).getByRole('checkbox', { name: 'General Subscription' }));
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    expect(await within(form).findByText('Captcha is required')).toBeInTheDocument();
    await user.click(await within(form).findByRole('checkbox', { name: "I'm not a robot" }));
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('You have been unsubscribed from the newsletter')).toBeInTheDocument();
    expect(await screen.findByText('You arent subscribed to our newsletter.')).toBeInTheDocument();

    failNext = true;
    form = screen.getByRole('form', { name: 'Newsletter Subscription' });
    await user.click(within(form).getByRole('checkbox', { name: 'General Subscription' }));
    await user.click(await within(form).findByRole('checkbox', { name: "I'm not a robot" }));
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    await waitFor(() => {
      expect(captcha.resets.reduce((sum, count) => sum + count, 0)).toBe(1);
    });
    expect(within(form).getByRole('checkbox', { name: "I'm not a robot" })).not.toBeChecked();

    failNext = false;
    await user.click(within(form).getByRole('checkbox', { name: "I'm not a robot" }));
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('You have been subscribed to the newsletter')).toBeInTheDocument();
    expect(calls.map(([kind]) => kind)).toEqual(['unsubscribe', 'subscribe', 'subscribe']);
    expect(calls[0]?.[1]).toBe(''); // no address: the BFF unsubscribes the signed-in user's own
    expect(calls[2]?.[1]).toEqual({
      email: 'avery@example.test',
      firstName: 'Avery',
      lastName: 'Shooter',
      captcha: 'test-captcha-token',
    });
  });
});

describe('My Reviews', () => {
  it('has the reviews widget slot', async () => {
    renderRoute('/profile/my-reviews');
    await heading('My Reviews');
    expect(document.querySelector('[data-reviews-widget="list"]')).not.toBeNull();
  });
});
