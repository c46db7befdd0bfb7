import { useMutation } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { TextField } from '../../../components/ui/field';
import { Captcha } from '../../../components/captcha/captcha';
import { useCaptchaForm } from '../../../components/captcha/use-captcha-form';
import { notify } from '../../../components/notifications/store';
import { forgotPassword } from '../api';
import { forgotPasswordSchema } from '../schemas';

export const FORGOT_PASSWORD_FAILED = 'Something went wrong, please try again later';

/** Request a password reset. Success: the server's message on the login page; failure: a generic error (spec). */
export function ForgotPasswordForm() {
  const navigate = useNavigate();
  const request = useMutation({ mutationFn: forgotPassword, meta: { errorToast: false } });
  const {
    form: {
      register,
      formState: { errors, isSubmitting },
    },
    onSubmit,
    captchaProps,
  } = useCaptchaForm({
    schema: forgotPasswordSchema,
    defaultValues: { email: '', captcha: '' },
    send: request.mutateAsync,
    onSuccess: (answer) => {
      const message = answer.message || 'If an account exists for that e-mail, a reset link is on its way';
      return navigate('/login', { state: { notification: { message, type: 'success' } } });
    },
    serverFields: ['email'],
    onFailure: (_error, fieldErrorsShown) => {
      if (!fieldErrorsShown) notify({ message: FORGOT_PASSWORD_FAILED, type: 'error' });
    },
  });

  return (
    <form className="auth-form" aria-label="Reset your password" noValidate onSubmit={onSubmit}>
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
        Reset
      </button>
      <Link to="/login" className="button button--outline">
        Go Back
      </Link>
    </form>
  );
}
