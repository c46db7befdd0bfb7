import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { installFakeCaptcha } from '../../test/captcha';
import { signedInSession } from '../../test/fixtures';
import { renderRoute } from '../../test/render';
import { problem, server } from '../../test/server';
import './newsletter-form';

let bodies: unknown[];

beforeEach(() => {
  bodies = [];
  server.use(
    http.post('/api/newsletter/subscribe', async ({ request }) => {
      expect(request.headers.get('X-CSRF')).toBe('1');
      bodies.push(await request.json());
      return HttpResponse.json({ message: 'You have been subscribed to the newsletter' });
    }),
  );
});

async function renderFooterForm() {
  const captcha = installFakeCaptcha();
  const user = userEvent.setup();
  renderRoute('/');
  const footer = await screen.findByRole('contentinfo');
  const form = await within(footer).findByRole('form', { name: 'STAY UPDATED' });
  return { user, footer, form, captcha };
}

describe('footer newsletter signup', () => {
  it("shows the 'STAY UPDATED' block with its copy", async () => {
    const { footer } = await renderFooterForm();
    expect(within(footer).getByRole('heading', { name: 'STAY UPDATED' })).toBeInTheDocument();
    expect(within(footer).getByText("Don't miss out on product launches, events, and free SWAG.")).toBeInTheDocument();
  });

  it('requires a valid e-mail and the captcha', async () => {
    const { user, form } = await renderFooterForm();

    await user.click(within(form).getByRole('button', { name: 'Subscribe' }));
    expect(await within(form).findByText('Email is required')).toBeInTheDocument();
    expect(within(form).getByText('Captcha is required')).toBeInTheDocument();
    expect(within(form).getByLabelText('Email')).toHaveAttribute('aria-invalid', 'true');

    await user.type(within(form).getByLabelText('Email'), 'not-an-email');
    await user.click(within(form).getByRole('button', { name: 'Subscribe' }));
    expect(await within(form).findByText('Email must be a valid email address')).toBeInTheDocument();
    expect(bodies).toEqual([]);
  });

  it('subscribes, shows the success message and clears the form', async () => {
    const { user, form, captcha } = await renderFooterForm();

    await user.type(within(form).getByLabelText('Email'), 'fan@example.test');
    await user.click(within(form).getByRole('checkbox', { name: "I'm not a robot" }));
    await user.click(within(form).getByRole('button', { name: 'Subscribe' }));

    expect(await screen.findByText('You have been subscribed to the newsletter')).toBeInTheDocument();
    expect(bodies).toEqual([{ email: 'fan@example.test', firstName: '', lastName: '', captcha: 'test-captcha-token' }]);
    expect(within(form).getByLabelText('Email')).toHaveValue('');
    expect(within(form).getByRole('checkbox', { name: "I'm not a robot" })).not.toBeChecked();
    expect(captcha.resets[0]).toBe(1);
    expect(within(form).queryByText('Captcha is required')).not.toBeInTheDocument();
  });

  it("includes the signed-in user's first and last name", async () => {
    server.use(http.get('/api/session', () => HttpResponse.json(signedInSession)));
    const { user, form } = await renderFooterForm();
    await waitFor(() => {
      expect(screen.getAllByRole('link', { name: 'Account' }).length).toBeGreaterThan(0);
    });

    await user.type(within(form).getByLabelText('Email'), 'avery@example.test');
    await user.click(within(form).getByRole('checkbox', { name: "I'm not a robot" }));
    await user.click(within(form).getByRole('button', { name: 'Subscribe' }));

    await waitFor(() => {
      expect(bodies).toEqual([
        { email: 'avery@example.test', firstName: 'Avery', lastName: 'Shooter', captcha: 'test-captcha-token' },
      ]);
    });
  });

  it('on failure clears and resets the captcha, keeps the e-mail and shows no message', async () => {
    server.use(
      http.post('/api/newsletter/subscribe', () =>
        problem(400, { title: 'Bad Request', detail: 'Captcha verification failed', code: 'validation_failed' }),
      ),
    );
    const { user, form, captcha } = await renderFooterForm();

    await user.type(within(form).getByLabelText('Email'), 'fan@example.test');
    await user.click(within(form).getByRole('checkbox', { name: "I'm not a robot" }));
    await user.click(within(form).getByRole('button', { name: 'Subscribe' }));

    await waitFor(() => {
      expect(captcha.resets[0]).toBe(1);
    });
    expect(within(form).getByRole('checkbox', { name: "I'm not a robot" })).not.toBeChecked();
    expect(within(form).getByLabelText('Email')).toHaveValue('fan@example.test');
    expect(screen.queryByText('You have been subscribed to the newsletter')).not.toBeInTheDocument();
    expect(screen.getByRole('alert')).toBeEmptyDOMElement();

    // the cleared token must be solved again
    await user.click(within(form).getByRole('button', { name: 'Subscribe' }));
    expect(await within(form).findByText('Captcha is required')).toBeInTheDocument();
  });

  it('shows the field messages the server sends', async () => {
    server.use(
      http.post('/api/newsletter/subscribe', () =>
        problem(400, {
          title: 'Invalid',
          code: 'validation_failed',
          errors: { email: 'Email must be a valid email address' },
        }),
      ),
    );
    const { user, form } = await renderFooterForm();
    await user.type(within(form).getByLabelText('Email'), 'fan@example.test');
    await user.click(within(form).getByRole('checkbox', { name: "I'm not a robot" }));
    await user.click(within(form).getByRole('button', { name: 'Subscribe' }));
    expect(await within(form).findByText('Email must be a valid email address')).toBeInTheDocument();
  });
});
