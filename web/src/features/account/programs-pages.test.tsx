import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Profile } from '../../api/types';
import { profile, signedInHandlers } from '../../test/fixtures/account';
import { formDataOf } from '../../test/multipart';
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

function renderStrict(path: string) {
  return renderRoute(path, { strict: true });
}

describe('Discount Programs', () => {
  it('shows each program with its status and action', async () => {
    account.militaryStatus = 'Verified';
    account.proDealStatus = 'Rejected';
    renderRoute('/profile/discount-programs');
    await screen.findByRole('heading', { level: 1, name: 'Discount Programs' }, slow);
    const military = screen.getByRole('region', { name: 'LE / MIL' });
    expect(military).toHaveTextContent('Your LE / MIL status is verified.');
    expect(within(military).queryByRole('link')).not.toBeInTheDocument();
    const proDeal = screen.getByRole('region', { name: 'Pro Deal' });
    expect(proDeal).toHaveTextContent('Your application is pending verification.');
    expect(within(proDeal).getByRole('link', { name: 'Reapply for Pro Deal' })).toHaveAttribute(
      'href',
      '/profile/pro-deal',
    );
  });
});

describe('Pro Deal', () => {
  it('names the refused files before uploading, then uploads the valid ones', async () => {
    const uploads: string[][] = [];
    server.use(
      http.post('/api/pro-deal', async ({ request }) => {
        const form = await formDataOf(request);
        // jsdom's File loses its name on the way to Node's fetch: the content tells the files apart
        uploads.push(
          await Promise.all(
            form
              .getAll('supportingDocuments')
              .map(async (part): Promise<string> => (typeof part === 'string' ? part : part.text())),
          ),
        );
        account.proDealStatus = 'Pending';
        return HttpResponse.json({
          message: 'Your Pro Deal application has been submitted and is pending verification.',
        });
      }),
    );
    const user = userEvent.setup({ applyAccept: false, delay: null });
    renderRoute('/profile/pro-deal');
    await screen.findByRole('heading', { level: 1, name: 'Pro Deal' }, slow);
    expect(
      screen.getByText('Dealers, FFLs and retail employees are ineligible for the Pro Deal program.'),
    ).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'prodeal@example.test' })).toHaveAttribute(
      'href',
      'mailto:prodeal@example.test',
    );
    const form = screen.getByRole('form', { name: 'Pro Deal application' });
    const input = within(form).getByLabelText('Supporting Documents');
    expect(input).toHaveAttribute('accept', '.png,.jpg,.jpeg,.tiff,.tif,.pdf');

    await user.click(within(form).getByRole('button', { name: 'Submit Application' }));
    expect(await within(form).findByText('At least one supporting document is required')).toBeInTheDocument();

    const big = new File([new Uint8Array(600_000)], 'paystub.pdf', { type: 'application/pdf' });
    const gif = new File(['GIF89a'], 'badge.gif', { type: 'image/gif' });
    const good = new File(['%PDF-1.4'], 'work-id.pdf', { type: 'application/pdf' });
    await user.upload(input, [good, big, gif]);
    const alert = await within(form).findByRole('alert');
    expect(alert).toHaveTextContent('paystub.pdf is too large: each file must be under 0.5 MB');
    expect(alert).toHaveTextContent('badge.gif is not an accepted file type');
    expect(alert).not.toHaveTextContent('work-id.pdf');
    await user.click(within(form).getByRole('button', { name: 'Submit Application' }));
    expect(uploads).toEqual([]);

    await user.upload(input, [good]);
    await waitFor(() => {
      expect(within(form).queryByRole('alert')).not.toBeInTheDocument();
    });
    await user.click(within(form).getByRole('button', { name: 'Submit Application' }));
    expect(
      await screen.findByText('Your Pro Deal application has been submitted and is pending verification.', {
        selector: 'p.notification__message',
      }),
    ).toBeInTheDocument();
    expect(uploads).toEqual([['%PDF-1.4']]);
    expect(await screen.findByText('Your application is pending verification.')).toBeInTheDocument();
  });

  it("shows the BFF's refusal under the field, and asks for an e-mail when the account has none", async () => {
    server.use(
      http.post('/api/pro-deal', () =>
        problem(415, {
          title: 'Unsupported Media Type',
          detail: 'x',
          errors: { supportingDocuments: 'id.png is not a valid PNG file' },
        }),
      ),
    );
    const user = userEvent.setup({ delay: null });
    const { unmount } = renderRoute('/profile/pro-deal');
    const form = await screen.findByRole('form', { name: 'Pro Deal application' }, slow);
    await user.upload(
      within(form).getByLabelText('Supporting Documents'),
      new File(['nope'], 'id.png', { type: 'image/png' }),
    );
    await user.click(within(form).getByRole('button', { name: 'Submit Application' }));
    expect(await within(form).findByText('id.png is not a valid PNG file')).toBeInTheDocument();
    unmount();

    account.email = '';
    renderRoute('/profile/pro-deal');
    expect(await screen.findByRole('link', { name: 'Update Contact Information' }, slow)).toHaveAttribute(
      'href',
      '/profile/details',
    );
    expect(screen.queryByRole('form', { name: 'Pro Deal application' })).not.toBeInTheDocument();
  });
});

describe('LE/MIL', () => {
  it('asks for a phone number and an address first', async () => {
    account.phoneNumber = null;
    account.addresses = [];
    renderRoute('/profile/le-mil');
    await screen.findByRole('heading', { level: 1, name: 'LE / MIL Verification' }, slow);
    expect(screen.getByRole('link', { name: 'Add Phone Number' })).toHaveAttribute('href', '/profile/details');
    expect(screen.getByRole('link', { name: 'Add Address' })).toHaveAttribute('href', '/profile/address-book/new');
    expect(screen.queryByRole('button', { name: 'Verify with VeriPass' })).not.toBeInTheDocument();
  });

  it('starts verification by going to the service', async () => {
    server.use(
      http.post('/api/military/session', () =>
        HttpResponse.json({ authorizationUrl: 'https://idv.example.test/authorize?state=s1' }),
      ),
    );
    const assign = vi.fn();
    vi.spyOn(window, 'location', 'get').mockReturnValue(
      Object.assign(new URL(window.location.href), { assign }) as unknown as Location,
    );
    const user = userEvent.setup({ delay: null });
    renderRoute('/profile/le-mil');
    await user.click(await screen.findByRole('button', { name: 'Verify with VeriPass' }, slow));
    await waitFor(() => {
      expect(assign).toHaveBeenCalledWith('https://idv.example.test/authorize?state=s1');
    });
  });

  it('posts code and state once on return (StrictMode), shows the message and the new status', async () => {
    const bodies: unknown[] = [];
    server.use(
      http.post('/api/military/callback', async ({ request }) => {
        bodies.push(await request.json());
        account.militaryStatus = 'Verified';
        return HttpResponse.json({ message: 'Your LE/MIL status has been verified', militaryStatus: 'Verified' });
      }),
    );
    const { router } = renderStrict('/profile/le-mil?code=c1&state=s1');
    expect(await screen.findByText('Your LE/MIL status has been verified', {}, slow)).toBeInTheDocument();
    await waitFor(() => {
      expect(router.location.search).toBe('');
    });
    expect(await screen.findByText(/Your LE \/ MIL status is verified\./, {}, slow)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Verify with VeriPass' })).not.toBeInTheDocument();
    expect(bodies).toEqual([{ code: 'c1', state: 's1' }]);
  });

  it('only logs a failed exchange, and the page carries on', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    server.use(
      http.post('/api/military/callback', () => problem(400, { title: 'Bad Request', detail: 'Invalid code' })),
    );
    const { router } = renderStrict('/profile/le-mil?code=bad&state=s2');
    expect(await screen.findByRole('button', { name: 'Verify with VeriPass' }, slow)).toBeInTheDocument();
    expect(router.location.search).toBe('');
    expect(logged).toHaveBeenCalled();
    expect(screen.queryByRole('alert')?.textContent ?? '').not.toContain('Invalid code');
  });
});

describe('verification pages', () => {
  it('verifies the registration link once under StrictMode and goes home with the success text', async () => {
    const tokens: unknown[] = [];
    server.use(
      http.post('/api/auth/verify-registration', async ({ request }) => {
        tokens.push(await request.json());
        await new Promise((resolve) => setTimeout(resolve, 50));
        return HttpResponse.json({ message: 'Registration verified successfully' });
      }),
    );
    const { router } = renderStrict('/verify-email?token=t-email-1');
    expect(
      await screen.findByRole('heading', { level: 1, name: 'VERIFYING REGISTRATION...' }, slow),
    ).toBeInTheDocument();
    expect(await screen.findByText('Registration verified successfully', {}, slow)).toBeInTheDocument();
    expect(screen.queryByText('Email verified successfully')).not.toBeInTheDocument();
    expect(router.location.pathname).toBe('/');
    expect(tokens).toEqual([{ token: 't-email-1' }]);
  });

  it('is the registration verification without any type parameter, and shows the server message or the fallback on failure', async () => {
    let answer: 'ok' | 'problem' | 'broken' = 'ok';
    server.use(
      http.post('/api/auth/verify-registration', () =>
        answer === 'ok'
          ? HttpResponse.json({ message: null })
          : answer === 'problem'
            ? problem(400, { title: 'Bad Request', detail: 'Invalid or expired verification token' })
            : new HttpResponse('nope', { status: 502 }),
      ),
    );
    const first = renderRoute('/verify-email?token=t-reg-1');
    expect(
      await screen.findByRole('heading', { level: 1, name: 'VERIFYING REGISTRATION...' }, slow),
    ).toBeInTheDocument();
    expect(await screen.findByText('Registration verified successfully', {}, slow)).toBeInTheDocument();
    first.unmount();

    answer = 'problem';
    const second = renderRoute('/verify-email?token=t-reg-2');
    expect(await screen.findByText('Invalid or expired verification token', {}, slow)).toBeInTheDocument();
    second.unmount();

    answer = 'broken';
    renderRoute('/verify-email?token=t-reg-3');
    expect(await screen.findByText('Email verification failed', {}, slow)).toBeInTheDocument();
  });

  it('verifies the newsletter link', async () => {
    const paths: string[] = [];
    server.use(
      http.post('/api/newsletter/verify/:token', ({ params }) => {
        paths.push(String(params.token));
        return HttpResponse.json({ message: 'Email verified successfully' });
      }),
    );
    const { router } = renderStrict('/Newsletter/verify/abc123');
    expect(await screen.findByText('Email verified successfully', {}, slow)).toBeInTheDocument();
    expect(router.location.pathname).toBe('/');
    expect(paths).toEqual(['abc123']);
  });
});
