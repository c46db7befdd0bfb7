import type { ForgotPassword, Login, MessageAnswer, Register, ResetPassword, SessionView } from '../../api/types';
import { apiSend } from '../../lib/api';

/** Sign-in and registration answer the new session (the tokens stay in the BFF). */
export function login(credentials: Login): Promise<SessionView> {
  return apiSend('POST', '/api/auth/login', credentials);
}

export function register(registration: Register): Promise<SessionView> {
  return apiSend('POST', '/api/auth/register', registration);
}

export function forgotPassword(request: ForgotPassword): Promise<MessageAnswer> {
  return apiSend('POST', '/api/auth/forgot-password', request);
}

export function resetPassword(reset: ResetPassword): Promise<MessageAnswer> {
  return apiSend('POST', '/api/auth/reset-password', reset);
}
