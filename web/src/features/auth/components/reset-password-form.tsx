import { useNavigate } from 'react-router';
import { useMutation } from '@tanstack/react-query';
import { PasswordField } from '../../../components/ui/password-field';
import { Captcha } from '../../../components/captcha/captcha';
import { useCaptchaForm } from '../../../components/captcha/use-captcha-form';
import { notify } from '../../../components/notifications/store';
import { resetPassword } from '../api';
import { resetPasswordSchema } from '../schemas';

export const PASSWORD_RESET = 'Password reset successfully';
export const PASSWORD_RESET_FAILED = 'Something went wrong, please try again';

/** Set a new password with the token from the e-mailed link (query parameter `token`). */
export function ResetPasswordForm({ token }: { token: string }) {
  const navigate = useNavigate();
  const reset = useMutation({ mutationFn: resetPassword, meta: { errorToast: false } });
  const {
    form: {
      register,
      formState: { errors, isSubmitting },
    },
    onSubmit,
    captchaProps,
  } = useCaptchaForm({
    schema: resetPasswordSchema,
    defaultValues: { password: '', confirmPassword: '', token, captcha: '' },
    send: reset.mutateAsync,
    onSuccess: () => navigate('/login', { state: { notification: { message: PASSWORD_RESET, type: 'success' } } }),
    serverFields: ['password', 'confirmPassword'],
    onFailure: (_error, fieldErrorsShown) => {
      if (!fieldErrorsShown) notify({ message: PASSWORD_RESET_FAILED, type: 'error' });
    },
  });

  return (
    <form className="auth-form" aria-label="Set a new password" noValidate onSubmit={onSubmit}>
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
      <Captcha {...captchaProps} />
      <button type="submit" className="button" disabled={isSubmitting}>
        Set Password
      </button>
    </form>
  );
}
