import { Link, useNavigate, useSearchParams } from 'react-router';
import { TextField } from '../../../components/ui/field';
import { PasswordField } from '../../../components/ui/password-field';
import { safeReturnPath } from '../../../lib/paths';
import { useRuntimeConfig } from '../../../lib/runtime-config';
import { Captcha } from '../../../components/captcha/captcha';
import { useCaptchaForm } from '../../../components/captcha/use-captcha-form';
import { useSignIn } from '../hooks';
import { loginSchema } from '../schemas';

/** Sign in: e-mail, password, captcha. Success goes home (or back to the page that asked for sign-in); failure clears and resets the captcha (spec: no message). */
export function LoginForm() {
  const brandName = useRuntimeConfig()?.brandName;
  const navigate = useNavigate();
  // the page a signed-out visitor asked for (the account guard sends it), else home
  const returnTo = safeReturnPath(useSearchParams()[0].get('redirectTo')) ?? '/';
  const signIn = useSignIn();
  const {
    form: {
      register,
      formState: { errors, isSubmitting },
    },
    onSubmit,
    captchaProps,
  } = useCaptchaForm({
    schema: loginSchema,
    defaultValues: { email: '', password: '', captcha: '' },
    send: signIn.mutateAsync,
    onSuccess: () => navigate(returnTo, { replace: returnTo !== '/' }),
    serverFields: ['email', 'password'],
  });

  return (
    <form className="auth-form" aria-label="Sign in" noValidate onSubmit={onSubmit}>
      <TextField
        label="Email"
        type="email"
        autoComplete="email"
        required
        error={errors.email?.message}
        {...register('email')}
      />
      <PasswordField
        label="Password"
        autoComplete="current-password"
        required
        error={errors.password?.message}
        {...register('password')}
      />
      <Captcha {...captchaProps} />
      <button type="submit" className="button" disabled={isSubmitting}>
        Sign In
      </button>
      <p className="auth-form__links">
        <Link to="/forgot-password">Forgot Your Password?</Link>
        <Link to="/register">New to {brandName || 'us'}? Create an account</Link>
      </p>
    </form>
  );
}
