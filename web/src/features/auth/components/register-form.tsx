import { zodResolver } from '@hookform/resolvers/zod';
import { useRef } from 'react';
import { useForm } from 'react-hook-form';
import { Link, useNavigate } from 'react-router';
import type { z } from 'zod/mini';
import { CheckboxField, TextField } from '../../../components/ui/field';
import { PasswordField } from '../../../components/ui/password-field';
import { Captcha, type CaptchaHandle } from '../../../components/captcha/captcha';
import { applyServerErrors } from '../../../lib/forms/rules';
import { useRegister } from '../hooks';
import { registerSchema } from '../schemas';

type Values = z.infer<typeof registerSchema>;

const empty: Values = {
  firstName: '',
  lastName: '',
  email: '',
  password: '',
  confirmPassword: '',
  newsletter: false,
  captcha: '',
};

/** Registration. Success signs in and goes home; failure clears and resets the captcha (spec). */
export function RegisterForm() {
  const navigate = useNavigate();
  const {
    register,
    handleSubmit,
    setValue,
    setError,
    formState: { errors, isSubmitting, isSubmitted },
  } = useForm<Values>({ resolver: zodResolver(registerSchema), defaultValues: empty });
  const captcha = useRef<CaptchaHandle>(null);
  const signUp = useRegister();

  const submit = async (values: Values) => {
    try {
      await signUp.mutateAsync(values);
      await navigate('/');
    } catch (error) {
      setValue('captcha', '');
      captcha.current?.reset();
      applyServerErrors(error, setError, ['firstName', 'lastName', 'email', 'password', 'confirmPassword']);
    }
  };

  return (
    <form
      className="auth-form"
      aria-label="Create an account"
      noValidate
      onSubmit={(event) => void handleSubmit(submit)(event)}
    >
      <div className="form-row">
        <TextField
          label="First Name"
          autoComplete="given-name"
          required
          error={errors.firstName?.message}
          {...register('firstName')}
        />
        <TextField
          label="Last Name"
          autoComplete="family-name"
          required
          error={errors.lastName?.message}
          {...register('lastName')}
        />
      </div>
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
      <CheckboxField label="Sign Up for Newsletter" {...register('newsletter')} />
      <Captcha
        ref={captcha}
        error={errors.captcha?.message}
        onChange={(token) => {
          setValue('captcha', token, { shouldValidate: isSubmitted });
        }}
      />
      <button type="submit" className="button" disabled={isSubmitting}>
        Create Account
      </button>
      <Link to="/login" className="button button--outline">
        I Have an account
      </Link>
    </form>
  );
}
