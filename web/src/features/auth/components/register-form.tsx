import { Link, useNavigate } from 'react-router';
import type { z } from 'zod/mini';
import { CheckboxField, TextField } from '../../../components/ui/field';
import { PasswordField } from '../../../components/ui/password-field';
import { Captcha } from '../../../components/captcha/captcha';
import { useCaptchaForm } from '../../../components/captcha/use-captcha-form';
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
  const signUp = useRegister();
  const {
    form: {
      register,
      formState: { errors, isSubmitting },
    },
    onSubmit,
    captchaProps,
  } = useCaptchaForm({
    schema: registerSchema,
    defaultValues: empty,
    send: signUp.mutateAsync,
    onSuccess: () => navigate('/'),
    serverFields: ['firstName', 'lastName', 'email', 'password', 'confirmPassword'],
  });

  return (
    <form className="auth-form" aria-label="Create an account" noValidate onSubmit={onSubmit}>
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
      <Captcha {...captchaProps} />
      <button type="submit" className="button" disabled={isSubmitting}>
        Create Account
      </button>
      <Link to="/login" className="button button--outline">
        I Have an account
      </Link>
    </form>
  );
}
