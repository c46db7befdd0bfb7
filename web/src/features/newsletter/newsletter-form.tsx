import { useMutation } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { TextField } from '../../components/ui/field';
import { Captcha } from '../../components/captcha/captcha';
import { useCaptchaForm } from '../../components/captcha/use-captcha-form';
import { captchaToken, emailAddress } from '../../lib/forms/rules';
import { notify } from '../../components/notifications/store';
import { useSession } from '../session';
import { SUBSCRIBED_MESSAGE, subscribeToNewsletter } from './api';

const schema = z.object({ email: emailAddress('Email'), captcha: captchaToken() });

interface NewsletterFormProps {
  /** Names the form (the heading of the block it sits in). */
  labelledBy: string;
  submitLabel?: string;
}

/**
 * The newsletter signup (footer and limited-edition page): e-mail and captcha. The signed-in
 * user's first and last name go along. Success: the spec's message and a cleared form; failure:
 * the captcha is cleared and reset (field messages from the server are shown).
 */
export function NewsletterForm({ labelledBy, submitLabel = 'Subscribe' }: NewsletterFormProps) {
  const { user } = useSession();
  const subscribe = useMutation({ mutationFn: subscribeToNewsletter, meta: { errorToast: false } });
  const {
    form: {
      register,
      formState: { errors, isSubmitting },
    },
    onSubmit,
    captchaProps,
  } = useCaptchaForm({
    schema,
    defaultValues: { email: '', captcha: '' },
    send: (values) =>
      subscribe.mutateAsync({
        email: values.email,
        firstName: user?.firstName ?? '',
        lastName: user?.lastName ?? '',
        captcha: values.captcha,
      }),
    clearOnSuccess: true,
    onSuccess: () => {
      notify({ message: SUBSCRIBED_MESSAGE, type: 'success' });
    },
    serverFields: ['email'],
  });

  return (
    <form className="newsletter-form" aria-labelledby={labelledBy} noValidate onSubmit={onSubmit}>
      <TextField
        label="Email"
        type="email"
        autoComplete="email"
        required
        error={errors.email?.message}
        {...register('email')}
      />
      <Captcha {...captchaProps} />
      <button type="submit" className="button" disabled={isSubmitting}>
        {submitLabel}
      </button>
    </form>
  );
}
