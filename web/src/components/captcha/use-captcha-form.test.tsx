import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod/mini';
import { ApiProblem } from '../../lib/api';
import { captchaToken, emailAddress } from '../../lib/forms/rules';
import { installFakeCaptcha } from '../../test/captcha';
import { renderWithClient } from '../../test/render';
import { Captcha } from './captcha';
import { useCaptchaForm, type CaptchaFormOptions } from './use-captcha-form';

const schema = z.object({ email: emailAddress('Email'), captcha: captchaToken() });
type Values = z.infer<typeof schema>;
type Options = Partial<CaptchaFormOptions<Values, { message: string }>>;

/** The smallest captcha form: one field, the widget, a button, the hook doing the rest. */
function ProbeForm(options: Options) {
  const {
    form: {
      register,
      formState: { errors, isSubmitting },
    },
    onSubmit,
    captchaProps,
  } = useCaptchaForm<Values, { message: string }>({
    schema,
    defaultValues: { email: '', captcha: '' },
    send: () => Promise.resolve({ message: 'sent' }),
    serverFields: ['email'],
    ...options,
  });
  return (
    <form aria-label="Probe" noValidate onSubmit={onSubmit}>
      <label htmlFor="probe-email">Email</label>
      <input
        id="probe-email"
        aria-invalid={errors.email ? true : undefined}
        aria-describedby={errors.email ? 'probe-email-error' : undefined}
        {...register('email')}
      />
      {errors.email?.message ? <p id="probe-email-error">{errors.email.message}</p> : null}
      <Captcha {...captchaProps} />
      <button type="submit" disabled={isSubmitting}>
        Send
      </button>
    </form>
  );
}

const choiceSchema = z.object({ subscribed: z.boolean(), captcha: captchaToken() });

/** A form that reads no errors of its own (like the newsletter preference): only the widget's. */
function ChoiceForm({ send }: { send: () => Promise<void> }) {
  const {
    form: { register },
    onSubmit,
    captchaProps,
  } = useCaptchaForm({ schema: choiceSchema, defaultValues: { subscribed: false, captcha: '' }, send });
  return (
    <form aria-label="Choice" noValidate onSubmit={onSubmit}>
      <label>
        <input type="checkbox" {...register('subscribed')} />
        Subscribe
      </label>
      <Captcha {...captchaProps} />
      <button type="submit">Save</button>
    </form>
  );
}

async function renderProbe(options: Options = {}) {
  const captcha = installFakeCaptcha('token-1');
  const user = userEvent.setup();
  renderWithClient(<ProbeForm {...options} />);
  const robot = await screen.findByRole('checkbox', { name: "I'm not a robot" });
  return { user, captcha, robot, email: screen.getByLabelText('Email'), button: screen.getByRole('button') };
}

const fieldProblem = new ApiProblem({
  type: 'about:blank',
  title: 'Invalid',
  status: 400,
  detail: '',
  code: 'validation_failed',
  errors: { email: 'This e-mail is already registered', other: 'not a field of the form' },
});

describe('useCaptchaForm', () => {
  it('sends nothing without a captcha token and says so under the widget', async () => {
    const send = vi.fn(() => Promise.resolve({ message: 'sent' }));
    const { user, email, button, robot } = await renderProbe({ send });

    await user.type(email, 'fan@example.test');
    await user.click(button);
    expect(await screen.findByText('Captcha is required')).toBeInTheDocument();
    expect(send).not.toHaveBeenCalled();

    // once submitted, solving the widget validates the token at once: the message goes
    await user.click(robot);
    await waitFor(() => {
      expect(screen.queryByText('Captcha is required')).not.toBeInTheDocument();
    });
    expect(send).not.toHaveBeenCalled();
  });

  it('sends the values with the token, then clears the form and the widget when asked', async () => {
    const send = vi.fn((values: Values) => Promise.resolve({ message: `sent to ${values.email}` }));
    const onSuccess = vi.fn();
    const onFailure = vi.fn();
    const { user, email, button, robot, captcha } = await renderProbe({
      send,
      onSuccess,
      onFailure,
      clearOnSuccess: true,
    });

    await user.type(email, 'fan@example.test');
    await user.click(robot);
    await user.click(button);

    await waitFor(() => {
      expect(onSuccess).toHaveBeenCalledWith(
        { message: 'sent to fan@example.test' },
        { email: 'fan@example.test', captcha: 'token-1' },
      );
    });
    expect(send).toHaveBeenCalledTimes(1);
    expect(onFailure).not.toHaveBeenCalled();
    expect(email).toHaveValue('');
    expect(robot).not.toBeChecked();
    expect(captcha.resets[0]).toBe(1);
  });

  it('keeps the form and the solved widget on success unless asked to clear', async () => {
    const onSuccess = vi.fn();
    const { user, email, button, robot, captcha } = await renderProbe({ onSuccess });

    await user.type(email, 'fan@example.test');
    await user.click(robot);
    await user.click(button);

    await waitFor(() => {
      expect(onSuccess).toHaveBeenCalledTimes(1);
    });
    expect(email).toHaveValue('fan@example.test');
    expect(captcha.resets[0]).toBe(0);
  });

  it("on failure resets the widget, clears the token and shows the problem's field messages", async () => {
    const send = vi.fn(() => Promise.reject(fieldProblem));
    const onSuccess = vi.fn();
    const onFailure = vi.fn();
    const { user, email, button, robot, captcha } = await renderProbe({ send, onSuccess, onFailure });

    await user.type(email, 'fan@example.test');
    await user.click(robot);
    await user.click(button);

    expect(await screen.findByText('This e-mail is already registered')).toBeInTheDocument();
    expect(email).toHaveAttribute('aria-invalid', 'true');
    expect(email).toHaveAccessibleDescription('This e-mail is already registered');
    expect(screen.queryByText('not a field of the form')).not.toBeInTheDocument();
    expect(captcha.resets[0]).toBe(1);
    expect(robot).not.toBeChecked();
    expect(onFailure).toHaveBeenCalledWith(fieldProblem, true);
    expect(onSuccess).not.toHaveBeenCalled();
    // the values stay for a second try
    expect(email).toHaveValue('fan@example.test');

    // the spent token is gone from the values: the widget must be solved again
    await user.click(button);
    expect(await screen.findByText('Captcha is required')).toBeInTheDocument();
    expect(send).toHaveBeenCalledTimes(1);
  });

  it('tells the failure handler when no field message could be shown', async () => {
    const failure = new Error('Network down');
    const onFailure = vi.fn();
    const { user, email, button, robot, captcha } = await renderProbe({
      send: () => Promise.reject(failure),
      onFailure,
    });

    await user.type(email, 'fan@example.test');
    await user.click(robot);
    await user.click(button);

    await waitFor(() => {
      expect(onFailure).toHaveBeenCalledWith(failure, false);
    });
    expect(captcha.resets[0]).toBe(1);
    expect(email).not.toHaveAttribute('aria-invalid');
  });

  it('treats a failing success step (a navigation, say) as a failure', async () => {
    const broken = new Error('navigation failed');
    const onFailure = vi.fn();
    const { user, email, button, robot, captcha } = await renderProbe({
      onSuccess: () => Promise.reject(broken),
      onFailure,
    });

    await user.type(email, 'fan@example.test');
    await user.click(robot);
    await user.click(button);

    await waitFor(() => {
      expect(onFailure).toHaveBeenCalledWith(broken, false);
    });
    expect(captcha.resets[0]).toBe(1);
  });

  it("shows the token's message in a form that reads no errors itself", async () => {
    installFakeCaptcha();
    const send = vi.fn(() => Promise.resolve());
    const user = userEvent.setup();
    renderWithClient(<ChoiceForm send={send} />);
    const robot = await screen.findByRole('checkbox', { name: "I'm not a robot" });

    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Captcha is required')).toBeInTheDocument();
    expect(send).not.toHaveBeenCalled();

    await user.click(robot);
    await waitFor(() => {
      expect(screen.queryByText('Captcha is required')).not.toBeInTheDocument();
    });
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => {
      expect(send).toHaveBeenCalledTimes(1);
    });
  });

  it('disables the button while the call is in flight', async () => {
    let finish: (answer: { message: string }) => void = () => undefined;
    const send = () =>
      new Promise<{ message: string }>((resolve) => {
        finish = resolve;
      });
    const { user, email, button, robot } = await renderProbe({ send });

    await user.type(email, 'fan@example.test');
    await user.click(robot);
    await user.click(button);
    await waitFor(() => {
      expect(button).toBeDisabled();
    });
    finish({ message: 'sent' });
    await waitFor(() => {
      expect(button).toBeEnabled();
    });
  });
});
