import { zodResolver } from '@hookform/resolvers/zod';
import { useMutation } from '@tanstack/react-query';
import { useRef } from 'react';
import { useForm } from 'react-hook-form';
import { useNavigate } from 'react-router';
import type { z } from 'zod/mini';
import { PasswordField } from '../../../components/ui/password-field';
import { Captcha, type CaptchaHandle } from '../../../components/captcha/captcha';
import { applyServerErrors } from '../../../lib/forms/rules';
import { notify } from '../../../components/notifications/store';
import { resetPassword } from '../api';
import { resetPasswordSchema } from '../schemas';

type Values = z.infer<typeof resetPasswordSchema>;

export const PASSWORD_RESET = 'Password reset successfully';
export const PASSWORD_RESET_FAILED = 'Something went wrong, please try again';

/** Set a new password with the token from the e-mailed link (query parameter `token`). */
export function ResetPasswordForm({ token }: { token: string }) {
  const navigate = useNavigate();
  const {
    register,
    handleSubmit,
    setValue,
    setError,
    formState: { errors, isSubmitting, isSubmitted },
  } = useForm<Values>({
    resolver: zodResolver(resetPasswordSchema),
    defaultValues: { password: '', confirmPassword: '', token, captcha: '' },
  });
  const captcha = useRef<CaptchaHandle>(null);
  const reset = useMutation({ mutationFn: resetPassword });

  const submit = async (values: Values) => {
    try {
      await reset.mutateAsync(values);
      await navigate('/login', { state: { notification: { message: PASSWORD_RESET, type: 'success' } } });
    } catch (error) {
      setValue('captcha', '');
      captcha.current?.reset();
      if (!applyServerErrors(error, setError, ['password', 'confirmPassword'])) {
        notify({ message: PASSWORD_RESET_FAILED, type: 'error' });
      }
    }
  };

  return (
    <form
      className="auth-form"
      aria-label="Set a new password"
      noValidate
      onSubmit={(event) => void handleSubmit(submit)(event)}
    >
      {errors.token?.message ? (
        <p className="field__error" role="alert">
          {errors.token.message}
        </p>
      ) : null}
      <PasswordField
        label="New Password"
        autoComplete="new-password"
        required
        error={errors.password?.message}
        {...register('password')}
      />
      <PasswordField
        label="Confirm Password"
        autoComplete="new-password"
        required
        error={errors.confirmPassword?.message}
        {...register('confirmPassword')}
      />
      <Captcha
        ref={captcha}
        error={errors.captcha?.message}
        onChange={(token) => {
          setValue('captcha', token, { shouldValidate: isSubmitted });
        }}
      />
      <button type="submit" className="button" disabled={isSubmitting}>
        Set Password
      </button>
    </form>
  );
}
