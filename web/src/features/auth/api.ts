import { apiSend } from '../../lib/api';
import type { Session } from '../session/queries';

export interface Credentials {
  email: string;
  password: string;
  captcha: string;
}

export interface Registration {
  firstName: string;
  lastName: string;
  email: string;
  password: string;
  confirmPassword: string;
  newsletter: boolean;
  captcha: string;
}

export interface PasswordReset {
  password: string;
  confirmPassword: string;
  token: string;
  captcha: string;
}

/** Sign-in and registration answer the new session (the tokens stay in the BFF). */
export function login(credentials: Credentials): Promise<Session> {
  return apiSend('POST', '/api/auth/login', credentials);
}

export function register(registration: Registration): Promise<Session> {
  return apiSend('POST', '/api/auth/register', registration);
}

export function forgotPassword(request: { email: string; captcha: string }): Promise<{ message: string | null }> {
  return apiSend('POST', '/api/auth/forgot-password', request);
}

export function resetPassword(reset: PasswordReset): Promise<{ message: string | null }> {
  return apiSend('POST', '/api/auth/reset-password', reset);
}
