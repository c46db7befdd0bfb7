import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Address, ChangePassword, MilitaryCallback, Profile, ProfileUpdate } from '../../api/types';
import { sessionKeys } from '../session';
import {
  applyForProDeal,
  changePassword,
  completeMilitaryVerification,
  createAddress,
  deleteAddress,
  getAccount,
  getNewsletterStatus,
  getOrder,
  resendVerification,
  startMilitaryVerification,
  subscribe,
  unsubscribe,
  updateAccount,
  updateAddress,
} from './api';

/**
 * The account area's server state. It all belongs to the signed-in user: signing out (or a
 * session that expired) drops it (`forgetSignedInUser` of the auth feature).
 */

export const accountKeys = {
  all: ['account'] as const,
  profile: () => [...accountKeys.all, 'profile'] as const,
  orders: () => [...accountKeys.all, 'orders'] as const,
  order: (id: string) => [...accountKeys.orders(), id] as const,
  newsletter: () => [...accountKeys.all, 'newsletter'] as const,
};

export const accountQuery = queryOptions({
  queryKey: accountKeys.profile(),
  queryFn: ({ signal }) => getAccount(signal),
});

export const orderQuery = (id: string) =>
  queryOptions({
    queryKey: accountKeys.order(id),
    queryFn: ({ signal }) => getOrder(id, signal),
    // the confirmation page answers these itself ("Order not found")
    meta: { quietStatuses: [400, 404] },
  });

export const newsletterStatusQuery = queryOptions({
  queryKey: accountKeys.newsletter(),
  queryFn: ({ signal }) => getNewsletterStatus(signal),
  // without it the form starts from the profile's own flag
  meta: { errorToast: false },
});

export function useAccount() {
  return useQuery(accountQuery);
}

/** Saves the profile (names and phone); the answer is the new profile, and the header's names follow. */
export function useUpdateProfile() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (update: ProfileUpdate) => updateAccount(update),
    // the form shows field errors inline and hands the rest to notifyError itself
    meta: { errorToast: false },
    onSuccess: async (profile: Profile) => {
      queryClient.setQueryData(accountKeys.profile(), profile);
      await queryClient.invalidateQueries({ queryKey: sessionKeys.all });
    },
  });
}

/** Creates (no id) or replaces an address; the account is reloaded before the mutation settles (spec). */
export function useSaveAddress() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, address }: { id: number | null; address: Address }) =>
      id === null ? createAddress(address) : updateAddress(id, address),
    // the form shows field errors inline and hands the rest to notifyError itself
    meta: { errorToast: false },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: accountKeys.profile() }),
  });
}

/** Deletes an address; the address list reloads (spec). */
export function useDeleteAddress() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => deleteAddress(id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: accountKeys.profile() }),
  });
}

export function useChangePassword() {
  return useMutation({ mutationFn: (change: ChangePassword) => changePassword(change), meta: { errorToast: false } });
}

export function useResendVerification() {
  return useMutation({ mutationFn: resendVerification, meta: { errorToast: false } });
}

interface NewsletterChange {
  subscribe: boolean;
  email: string;
  firstName: string;
  lastName: string;
  captcha: string;
}

/** Subscribes or unsubscribes the account's address; the status is reloaded afterwards either way (spec). */
export function useNewsletterPreference() {
  const queryClient = useQueryClient();
  return useMutation({
    meta: { errorToast: false },
    mutationFn: (change: NewsletterChange) =>
      change.subscribe
        ? subscribe({
            email: change.email,
            firstName: change.firstName,
            lastName: change.lastName,
            captcha: change.captcha,
          })
        : unsubscribe(),
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: accountKeys.newsletter() }),
        queryClient.invalidateQueries({ queryKey: accountKeys.profile() }),
      ]),
  });
}

export function useApplyForProDeal() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (files: readonly File[]) => applyForProDeal(files),
    // the form shows its own texts for a refused application
    meta: { errorToast: false },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: accountKeys.profile() }),
  });
}

export function useStartMilitaryVerification() {
  return useMutation({ mutationFn: startMilitaryVerification });
}

export function useCompleteMilitaryVerification() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (callback: MilitaryCallback) => completeMilitaryVerification(callback),
    // on error nothing further happens (companion spec, LE/MIL flow): the failure is only logged
    meta: { errorToast: false },
    onSettled: () => queryClient.invalidateQueries({ queryKey: accountKeys.profile() }),
  });
}
