import { z } from 'zod/mini';
import { captchaToken, emailAddress, newPassword, PASSWORDS_DO_NOT_MATCH, requiredText } from '../../lib/forms/rules';

const passwordsMatch = z.refine<{ password: string; confirmPassword: string }>(
  (values) => values.password === values.confirmPassword,
  {
    error: PASSWORDS_DO_NOT_MATCH,
    path: ['confirmPassword'],
  },
);

export const loginSchema = z.object({
  email: emailAddress('Email'),
  password: requiredText('Password'),
  captcha: captchaToken(),
});

export const registerSchema = z
  .object({
    firstName: requiredText('First Name'),
    lastName: requiredText('Last Name'),
    email: emailAddress('Email'),
    password: newPassword('Password'),
    confirmPassword: requiredText('Confirm Password'),
    newsletter: z.boolean(),
    captcha: captchaToken(),
  })
  .check(passwordsMatch);

export const forgotPasswordSchema = z.object({
  email: emailAddress('Email'),
  captcha: captchaToken(),
});

export const resetPasswordSchema = z
  .object({
    password: newPassword('Password'),
    confirmPassword: requiredText('Confirm Password'),
    token: z.string().check(z.minLength(1, 'This password reset link is incomplete: use the link from the e-mail')),
    captcha: captchaToken(),
  })
  .check(passwordsMatch);
