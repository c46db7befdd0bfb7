import { zodResolver } from '@hookform/resolvers/zod';
import { useRef } from 'react';
import { useForm } from 'react-hook-form';
import { Link, useNavigate, useSearchParams } from 'react-router';
import type { z } from 'zod/mini';
import { TextField } from '../../../components/ui/field';
import { PasswordField } from '../../../components/ui/password-field';
import { safeReturnPath } from '../../../lib/paths';
import { useRuntimeConfig } from '../../../lib/runtime-config';
import { Captcha, type CaptchaHandle } from '../../../components/captcha/captcha';
import { applyServerErrors } from '../../../lib/forms/rules';
import { useSignIn } from '../hooks';
import { loginSchema } from '../schemas';

type Values = z.infer<typeof loginSchema>;

/** Sign in: e-mail, password, captcha. Success goes home (or back to the page that asked for sign-in); failure clears and resets the captcha (spec: no message). */
export function LoginForm() {
  const brandName = useRuntimeConfig()?.brandName;
  const navigate = useNavigate();
  // the page a signed-out visitor asked for (the account guard sends it), else home
  const returnTo = safeReturnPath(useSearchParams()[0].get('redirectTo')) ?? '/';
  const {
    register,
    handleSubmit,
    setValue,
    setError,
    formState: { errors, isSubmitting, isSubmitted },
  } = useForm<Values>({ resolver: zodResolver(loginSchema), defaultValues: { email: '', password: '', captcha: '' } });
  const captcha = useRef<CaptchaHandle>(null);
  const signIn = useSignIn();

  const submit = async (values: Values) => {
    try {
      await signIn.mutateAsync(values);
      await navigate(returnTo, { replace: returnTo !== '/' });
    } catch (error) {
      setValue('captcha', '');
      captcha.current?.reset();
      applyServerErrors(error, setError, ['email', 'password']);
    }
  };

  return (
    <form className="auth-form" aria-label="Sign in" noValidate onSubmit={(event) => void handleSubmit(submit)(event)}>
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
      <Captcha
        ref={captcha}
        error={errors.captcha?.message}
        onChange={(token) => {
          setValue('captcha', token, { shouldValidate: isSubmitted });
        }}
      />
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
