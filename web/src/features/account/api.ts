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
} from '../../api/types';
import { api, unwrap } from '../../lib/api';

/** Every BFF call of the account area and the verification pages. */

export function getAccount(signal?: AbortSignal): Promise<Profile> {
  return unwrap(api.GET('/api/account', { signal }));
}

export function updateAccount(update: ProfileUpdate): Promise<Profile> {
  return unwrap(api.PUT('/api/account', { body: update }));
}

export function createAddress(address: Address): Promise<StoredAddress> {
  return unwrap(api.POST('/api/account/addresses', { body: address }));
}

export function updateAddress(id: number, address: Address): Promise<StoredAddress> {
  return unwrap(api.PUT('/api/account/addresses/{id}', { params: { path: { id: String(id) } }, body: address }));
}

export function deleteAddress(id: number): Promise<void> {
  return unwrap(api.DELETE('/api/account/addresses/{id}', { params: { path: { id: String(id) } } }));
}

export function getOrder(id: string, signal?: AbortSignal): Promise<Order> {
  return unwrap(api.GET('/api/orders/{id}', { params: { path: { id } }, signal }));
}

export function changePassword(change: ChangePassword): Promise<MessageAnswer> {
  return unwrap(api.POST('/api/auth/change-password', { body: change }));
}

export function resendVerification(): Promise<MessageAnswer> {
  return unwrap(api.POST('/api/auth/resend-verification'));
}

export function verifyRegistration(token: string): Promise<MessageAnswer> {
  return unwrap(api.POST('/api/auth/verify-registration', { body: { token } }));
}

export function getNewsletterStatus(signal?: AbortSignal): Promise<NewsletterStatus> {
  return unwrap(api.GET('/api/newsletter/status', { signal }));
}

export function subscribe(subscription: Subscribe): Promise<MessageAnswer> {
  return unwrap(api.POST('/api/newsletter/subscribe', { body: subscription }));
}

/** Unsubscribes the signed-in user's own address: the BFF takes it from the session, never from the request. */
export function unsubscribe(): Promise<MessageAnswer> {
  return unwrap(api.POST('/api/newsletter/unsubscribe'));
}

export function verifyNewsletter(token: string): Promise<MessageAnswer> {
  return unwrap(api.POST('/api/newsletter/verify/{token}', { params: { path: { token } } }));
}

/** Multipart: one `supportingDocuments` part per file (the account's e-mail is the BFF's to add). */
export function applyForProDeal(files: readonly File[]): Promise<MessageAnswer> {
  return unwrap(
    api.POST('/api/pro-deal', {
      // the contract types binary parts as strings; the files themselves go into the FormData
      body: { supportingDocuments: files.map((file) => file.name) },
      bodySerializer: () => {
        const form = new FormData();
        for (const file of files) form.append('supportingDocuments', file, file.name);
        return form;
      },
    }),
  );
}

export function startMilitaryVerification(): Promise<MilitarySession> {
  return unwrap(api.POST('/api/military/session'));
}

export function completeMilitaryVerification(callback: MilitaryCallback): Promise<MilitaryOutcome> {
  return unwrap(api.POST('/api/military/callback', { body: callback }));
}
