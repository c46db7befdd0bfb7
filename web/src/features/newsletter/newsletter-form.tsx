import { zodResolver } from '@hookform/resolvers/zod';
import { useMutation } from '@tanstack/react-query';
import { useRef } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod/mini';
import { TextField } from '../../components/ui/field';
import { Captcha, type CaptchaHandle } from '../../components/captcha/captcha';
import { applyServerErrors, captchaToken, emailAddress } from '../../lib/forms/rules';
import { notify } from '../../components/notifications/store';
import { useSession } from '../session';
import { SUBSCRIBED_MESSAGE, subscribeToNewsletter } from './api';

const schema = z.object({ email: emailAddress('Email'), captcha: captchaToken() });
type Values = z.infer<typeof schema>;

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
  const captcha = useRef<CaptchaHandle>(null);
  const {
    register,
    handleSubmit,
    reset,
    setValue,
    setError,
    formState: { errors, isSubmitting, isSubmitted },
  } = useForm<Values>({ resolver: zodResolver(schema), defaultValues: { email: '', captcha: '' } });
  const subscribe = useMutation({ mutationFn: subscribeToNewsletter });

  const submit = async (values: Values) => {
    try {
      await subscribe.mutateAsync({
        email: values.email,
        firstName: user?.firstName ?? '',
        lastName: user?.lastName ?? '',
        captcha: values.captcha,
      });
      reset();
      captcha.current?.reset();
      notify({ message: SUBSCRIBED_MESSAGE, type: 'success' });
    } catch (error) {
      setValue('captcha', '');
      captcha.current?.reset();
      applyServerErrors(error, setError, ['email']);
    }
  };

  return (
    <form
      className="newsletter-form"
      aria-labelledby={labelledBy}
      noValidate
      onSubmit={(event) => void handleSubmit(submit)(event)}
    >
      <TextField
        label="Email"
        type="email"
        autoComplete="email"
        required
        error={errors.email?.message}
        {...register('email')}
      />
      <Captcha
        ref={captcha}
        error={errors.captcha?.message}
        onChange={(token) => {
          setValue('captcha', token, { shouldValidate: isSubmitted });
        }}
      />
      <button type="submit" className="button" disabled={isSubmitting}>
        {submitLabel}
      </button>
    </form>
  );
}
