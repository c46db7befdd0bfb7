import type {
  Address,
  ChangePassword,
  MessageAnswer,
  MilitaryCallback,
  MilitaryOutcome,
  MilitarySession,
  NewsletterStatus,
  Order,
  Profile,
  ProfileUpdate,
  StoredAddress,
  Subscribe,
  Unsubscribe,
} from '../../api/types';
import { apiGet, apiSend } from '../../lib/api';

/** Every BFF call of the account area and the verification pages. */

export function getAccount(signal?: AbortSignal): Promise<Profile> {
  return apiGet('/api/account', signal ? { signal } : {});
}

export function updateAccount(update: ProfileUpdate): Promise<Profile> {
  return apiSend('PUT', '/api/account', update);
}

export function createAddress(address: Address): Promise<StoredAddress> {
  return apiSend('POST', '/api/account/addresses', address);
}

export function updateAddress(id: number, address: Address): Promise<StoredAddress> {
  return apiSend('PUT', `/api/account/addresses/${String(id)}`, address);
}

export function deleteAddress(id: number): Promise<void> {
  return apiSend('DELETE', `/api/account/addresses/${String(id)}`);
}

export function getOrder(id: string, signal?: AbortSignal): Promise<Order> {
  return apiGet(`/api/orders/${encodeURIComponent(id)}`, signal ? { signal } : {});
}

export function changePassword(change: ChangePassword): Promise<MessageAnswer> {
  return apiSend('POST', '/api/auth/change-password', change);
}

export function resendVerification(): Promise<MessageAnswer> {
  return apiSend('POST', '/api/auth/resend-verification');
}

export function verifyRegistration(token: string): Promise<MessageAnswer> {
  return apiSend('POST', '/api/auth/verify-registration', { token });
}

export function getNewsletterStatus(signal?: AbortSignal): Promise<NewsletterStatus> {
  return apiGet('/api/newsletter/status', signal ? { signal } : {});
}

export function subscribe(subscription: Subscribe): Promise<MessageAnswer> {
  return apiSend('POST', '/api/newsletter/subscribe', subscription);
}

export function unsubscribe(request: Unsubscribe): Promise<MessageAnswer> {
  return apiSend('POST', '/api/newsletter/unsubscribe', request);
}

export function verifyNewsletter(token: string): Promise<MessageAnswer> {
  return apiSend('POST', `/api/newsletter/verify/${encodeURIComponent(token)}`);
}

/** Multipart: one `supportingDocuments` part per file (the account's e-mail is the BFF's to add). */
export function applyForProDeal(files: readonly File[]): Promise<MessageAnswer> {
  const form = new FormData();
  for (const file of files) form.append('supportingDocuments', file, file.name);
  return apiSend('POST', '/api/pro-deal', form);
}

export function startMilitaryVerification(): Promise<MilitarySession> {
  return apiSend('POST', '/api/military/session');
}

export function completeMilitaryVerification(callback: MilitaryCallback): Promise<MilitaryOutcome> {
  return apiSend('POST', '/api/military/callback', callback);
}
