import { zodResolver } from '@hookform/resolvers/zod';
import { useMutation } from '@tanstack/react-query';
import { useRef } from 'react';
import { useForm } from 'react-hook-form';
import { Link, useNavigate } from 'react-router';
import type { z } from 'zod/mini';
import { TextField } from '../../../components/ui/field';
import { Captcha, type CaptchaHandle } from '../../../components/captcha/captcha';
import { applyServerErrors } from '../../../lib/forms/rules';
import { notify } from '../../../components/notifications/store';
import { forgotPassword } from '../api';
import { forgotPasswordSchema } from '../schemas';

type Values = z.infer<typeof forgotPasswordSchema>;

export const FORGOT_PASSWORD_FAILED = 'Something went wrong, please try again later';

/** Request a password reset. Success: the server's message on the login page; failure: a generic error (spec). */
export function ForgotPasswordForm() {
  const navigate = useNavigate();
  const {
    register,
    handleSubmit,
    setValue,
    setError,
    formState: { errors, isSubmitting, isSubmitted },
  } = useForm<Values>({ resolver: zodResolver(forgotPasswordSchema), defaultValues: { email: '', captcha: '' } });
  const captcha = useRef<CaptchaHandle>(null);
  const request = useMutation({ mutationFn: forgotPassword });

  const submit = async (values: Values) => {
    try {
      const answer = await request.mutateAsync(values);
      const message = answer.message || 'If an account exists for that e-mail, a reset link is on its way';
      await navigate('/login', { state: { notification: { message, type: 'success' } } });
    } catch (error) {
      setValue('captcha', '');
      captcha.current?.reset();
      if (!applyServerErrors(error, setError, ['email'])) notify({ message: FORGOT_PASSWORD_FAILED, type: 'error' });
    }
  };

  return (
    <form
      className="auth-form"
      aria-label="Reset your password"
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
        Reset
      </button>
      <Link to="/login" className="button button--outline">
        Go Back
      </Link>
    </form>
  );
}
