import type { FieldValues, Path, UseFormSetError } from 'react-hook-form';
import { z } from 'zod/mini';
import { isApiProblem } from '../api';

/** The shared form rules (spec): '<Field name> is required', '<Field name> must be a valid email address'. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const MIN_PASSWORD_LENGTH = 8;
export const PASSWORD_TOO_SHORT = 'Password must be at least 8 characters long';
export const PASSWORDS_DO_NOT_MATCH = 'Passwords do not match';

export function requiredText(fieldName: string) {
  return z.string().check(z.trim(), z.minLength(1, `${fieldName} is required`));
}

export function emailAddress(fieldName = 'Email') {
  return z
    .string()
    .check(
      z.trim(),
      z.minLength(1, `${fieldName} is required`),
      z.regex(EMAIL_PATTERN, `${fieldName} must be a valid email address`),
    );
}

export function newPassword(fieldName = 'Password') {
  return z
    .string()
    .check(z.minLength(1, `${fieldName} is required`), z.minLength(MIN_PASSWORD_LENGTH, PASSWORD_TOO_SHORT));
}

export function captchaToken() {
  return z.string().check(z.minLength(1, 'Captcha is required'));
}

/**
 * Copies the field messages of a problem answer (`errors: {field: message}`) onto the form's
 * fields; returns whether any was applied.
 */
export function applyServerErrors<T extends FieldValues>(
  error: unknown,
  setError: UseFormSetError<T>,
  fields: readonly Path<T>[],
): boolean {
  if (!isApiProblem(error) || !error.errors) return false;
  let applied = false;
  for (const field of fields) {
    const message = error.errors[field];
    if (message) {
      setError(field, { type: 'server', message });
      applied = true;
    }
  }
  return applied;
}
