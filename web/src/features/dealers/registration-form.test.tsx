import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { US_STATES } from '../../lib/us-states';
import { installFakeCaptcha } from '../../test/captcha';
import { renderRoute } from '../../test/render';
import { formDataOf } from '../../test/multipart';
import { problem, server } from '../../test/server';

const THANKS = 'Thank you for registering. Our dealer team will review your application and contact you.';
let received: { fields: Record<string, string>; files: Record<string, string> }[];

beforeAll(async () => {
  await import('../../app/routes/dealer-registration');
}, 30_000);

beforeEach(() => {
  received = [];
  server.use(
    http.get('/api/pages/dealerregistration', () =>
      HttpResponse.json({
        title: 'Become a Dealer',
        greeting: 'Thanks for your interest.',
        subText: [{ type: 'paragraph', children: [{ type: 'text', text: 'We review every application.' }] }],
      }),
    ),
    http.post('/api/dealer-registrations', async ({ request }) => {
      expect(request.headers.get('X-CSRF')).toBe('1');
      expect(request.headers.get('Content-Type')).toMatch(/^multipart\/form-data; boundary=/);
      const form = await formDataOf(request);
      const fields: Record<string, string> = {};
      const files: Record<string, string> = {};
      for (const [name, value] of form.entries()) {
        if (typeof value === 'string') fields[name] = value;
        else files[name] = value.name;
      }
      received.push({ fields, files });
      return HttpResponse.json({ message: THANKS });
    }),
  );
});

async function renderForm() {
  const captcha = installFakeCaptcha();
  // a file chooser's `accept` is only a hint: people can still pick any file
  const user = userEvent.setup({ applyAccept: false, delay: null });
  renderRoute('/dealer-registration');
  const main = await screen.findByRole('main');
  const form = await within(main).findByRole('form', { name: 'Become a Dealer' }, { timeout: 5000 });
  const text = (name: string) => within(form).getByRole('textbox', { name });
  return { user, form, text, captcha };
}

async function fillRequired(user: ReturnType<typeof userEvent.setup>, text: (name: string) => HTMLElement) {
  await user.type(text('Company'), 'Ridge Outfitters');
  await user.type(text('Website'), 'ridge.example');
  await user.type(text('First Name'), 'Dana');
  await user.type(text('Last Name'), 'Reyes');
  await user.type(text('Phone'), '2085550100');
  await user.type(text('Email'), 'owner@ridge.example');
  await user.type(text('Street Address'), '1 Main St');
  await user.type(text('City'), 'Boise');
  await user.selectOptions(screen.getByRole('combobox', { name: 'State' }), 'ID');
  await user.type(text('Postal Code'), '83702');
}

describe('dealer registration', { timeout: 20_000 }, () => {
  it('shows the content texts and every required message, the captcha one included', async () => {
    const { user, form } = await renderForm();
    expect(screen.getByRole('heading', { level: 1, name: 'Become a Dealer' })).toBeInTheDocument();
    expect(screen.getByText('Thanks for your interest.')).toBeInTheDocument();
    expect(screen.getByText('We review every application.')).toBeInTheDocument();

    await user.click(within(form).getByRole('button', { name: 'Submit' }));
    expect(await within(form).findByText('Please complete the reCAPTCHA')).toBeInTheDocument();
    expect(within(form).getAllByText('Required')).toHaveLength(10);
    expect(received).toEqual([]);
  });

  it('offers the 50 states and DC as the State, and keeps digits only in the ZIP', async () => {
    const { user, form, text } = await renderForm();
    const state = within(form).getByRole('combobox', { name: 'State' });
    const options = within(state).getAllByRole('option');
    expect(options).toHaveLength(52); // 'Select a state', the 50 states and DC
    expect(options.map((option) => option.getAttribute('value'))).toEqual(['', ...US_STATES.map(([code]) => code)]);
    expect(within(state).getByRole('option', { name: 'District of Columbia' })).toHaveValue('DC');
    await user.type(text('Postal Code'), 'ZIP 8-37a02');
    expect(text('Postal Code')).toHaveValue('83702');
  });

  it("asks for the locator address only without 'use this address', and FFL parts only with FFL/SOT", async () => {
    const { user, form, text } = await renderForm();
    expect(within(form).queryByRole('group', { name: 'Dealer locator address' })).not.toBeInTheDocument();
    await user.type(text('City'), 'Boise');
    await user.click(within(form).getByRole('checkbox', { name: 'Use this address in the dealer locator' }));
    const locator = within(form).getByRole('group', { name: 'Dealer locator address' });
    await user.click(within(form).getByRole('button', { name: 'Submit' }));
    await waitFor(() => {
      expect(within(locator).getAllByText('Required')).toHaveLength(4);
    });

    // back on: the company address is copied
    await user.click(within(form).getByRole('checkbox', { name: 'Use this address in the dealer locator' }));
    expect(within(form).queryByRole('group', { name: 'Dealer locator address' })).not.toBeInTheDocument();
    await user.click(within(form).getByRole('checkbox', { name: 'Use this address in the dealer locator' }));
    expect(within(form).getByRole('textbox', { name: 'Locator City' })).toHaveValue('Boise');

    await user.click(within(form).getByRole('checkbox', { name: 'Appear in the dealer locator' }));
    expect(
      within(form).queryByRole('checkbox', { name: 'Use this address in the dealer locator' }),
    ).not.toBeInTheDocument();
    expect(within(form).queryByRole('group', { name: 'Dealer locator address' })).not.toBeInTheDocument();

    expect(within(form).queryByRole('textbox', { name: 'FFL Number' })).not.toBeInTheDocument();
    await user.click(within(form).getByRole('checkbox', { name: 'I have an FFL / SOT' }));
    await user.click(within(form).getByRole('button', { name: 'Submit' }));
    expect(within(form).getByRole('textbox', { name: 'FFL Number' })).toHaveAccessibleDescription('Required');
    expect(within(form).getByLabelText('FFL Document')).toHaveAccessibleDescription(
      'PDF, TIF or TIFF, under 10 MB Required',
    );
    expect(within(form).getByRole('textbox', { name: 'SOT / EIN (optional)' })).not.toHaveAttribute('aria-invalid');
  });

  it('refuses a document that is not pdf or tif/tiff as soon as it is chosen, naming the file', async () => {
    const { user, form } = await renderForm();
    await user.click(within(form).getByRole('checkbox', { name: 'I have an FFL / SOT' }));
    const upload = within(form).getByLabelText('FFL Document');
    await user.upload(upload, new File(['png'], 'licence.png', { type: 'image/png' }));
    expect(
      await within(form).findByText(
        'licence.png is not an accepted file type: only pdf, tif and tiff files are accepted',
      ),
    ).toBeInTheDocument();
    await user.upload(upload, new File(['%PDF-1.4'], 'licence.pdf', { type: 'application/pdf' }));
    await waitFor(() => {
      expect(within(form).queryByText(/licence\.png is not an accepted file type/)).not.toBeInTheDocument();
    });
  });

  it('sends the multipart form, shows the server message and clears the form', async () => {
    const { user, form, text, captcha } = await renderForm();
    await fillRequired(user, text);
    expect(text('Phone')).toHaveValue('(208) 555-0100');
    await user.click(within(form).getByRole('checkbox', { name: 'I have an FFL / SOT' }));
    await user.type(text('FFL Number'), '1-23-456');
    await user.upload(
      within(form).getByLabelText('FFL Document'),
      new File(['%PDF-1.4'], 'licence.pdf', { type: 'application/pdf' }),
    );
    await user.click(within(form).getByRole('checkbox', { name: "I'm not a robot" }));
    await user.click(within(form).getByRole('button', { name: 'Submit' }));

    expect(await screen.findByText(THANKS)).toBeInTheDocument();
    expect(received).toHaveLength(1);
    expect(received[0]?.fields).toEqual({
      company: 'Ridge Outfitters',
      website: 'ridge.example',
      phone: '(208) 555-0100',
      email: 'owner@ridge.example',
      firstName: 'Dana',
      lastName: 'Reyes',
      streetAddress: '1 Main St',
      city: 'Boise',
      state: 'ID',
      postalCode: '83702',
      country: 'United States',
      appearInDealerLocator: 'true',
      useThisAddressInDealerLocator: 'true',
      locatorStreetAddress: '1 Main St',
      locatorCity: 'Boise',
      locatorState: 'ID',
      locatorPostalCode: '83702',
      locatorCountry: 'United States',
      hasFflSot: 'true',
      fflNumber: '1-23-456',
      sotEin: '',
      captcha: 'test-captcha-token',
    });
    // one file part (jsdom's File loses its name on the way through Node's fetch; the e2e test
    // sends a real one to the server, which checks the name)
    expect(Object.keys(received[0]?.files ?? {})).toEqual(['fflDocument']);
    expect(text('Company')).toHaveValue('');
    expect(within(form).getByRole('checkbox', { name: 'I have an FFL / SOT' })).not.toBeChecked();
    expect(captcha.resets[0]).toBe(1);
  });

  it('on failure resets the captcha, shows the error and the field messages', async () => {
    server.use(
      http.post('/api/dealer-registrations', () =>
        problem(422, {
          title: 'Unprocessable Entity',
          detail: 'Captcha verification failed',
          code: 'validation_failed',
          errors: { captcha: 'Please complete the reCAPTCHA' },
        }),
      ),
    );
    const { user, form, text, captcha } = await renderForm();
    await fillRequired(user, text);
    await user.click(within(form).getByRole('checkbox', { name: "I'm not a robot" }));
    await user.click(within(form).getByRole('button', { name: 'Submit' }));

    expect(await screen.findByText('Error: Captcha verification failed')).toBeInTheDocument();
    expect(captcha.resets[0]).toBe(1);
    expect(within(form).getByRole('checkbox', { name: "I'm not a robot" })).not.toBeChecked();
    expect(within(form).getByText('Please complete the reCAPTCHA')).toBeInTheDocument();
    // the form keeps what was typed
    expect(text('Company')).toHaveValue('Ridge Outfitters');
  });
});
