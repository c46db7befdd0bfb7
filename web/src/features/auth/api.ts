import type { ForgotPassword, Login, MessageAnswer, Register, ResetPassword, SessionView } from '../../api/types';
import { api, unwrap } from '../../lib/api';

/** Sign-in and registration answer the new session (the tokens stay in the BFF). */
export function login(credentials: Login): Promise<SessionView> {
  return unwrap(api.POST('/api/auth/login', { body: credentials }));
}

export function register(registration: Register): Promise<SessionView> {
  return unwrap(api.POST('/api/auth/register', { body: registration }));
}

export function forgotPassword(request: ForgotPassword): Promise<MessageAnswer> {
  return unwrap(api.POST('/api/auth/forgot-password', { body: request }));
}

export function resetPassword(reset: ResetPassword): Promise<MessageAnswer> {
  return unwrap(api.POST('/api/auth/reset-password', { body: reset }));
}
