import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import { useLocation, useNavigate, useParams } from 'react-router';

import type { Address, Profile, StoredAddress } from '../../../api/types';
import { AddressFieldset } from '../../../components/address/address-fieldset';
import { safeReturnPath } from '../../../lib/paths';
import { applyServerErrors } from '../../../lib/forms/rules';
import { notifyError } from '../../../components/notifications/store';
import { useSaveAddress } from '../queries';
import { addressBookLayout } from '../address-layout';
import { DEFAULT_COUNTRY } from '../regions';
import { addressSchema, type AddressValues } from '../schemas';
import { AccountPage } from './account-page';

/** The default address type (spec constants). */
export const DEFAULT_ADDRESS_TYPE = 10;

const FIELDS = [
  'addressName',
  'firstName',
  'lastName',
  'company',
  'mainContact',
  'faxContact',
  'addressLine1',
  'addressLine2',
  'city',
  'state',
  'postalCode',
  'country',
] as const;

/** Where Save and Cancel go: the page the form was opened from (`state.from`), else `fallback`. */
export function useOrigin(fallback = '/profile/address-book'): string {
  const state: unknown = useLocation().state;
  const from =
    typeof state === 'object' && state !== null && 'from' in state && typeof state.from === 'string'
      ? state.from
      : null;
  return safeReturnPath(from) ?? fallback;
}

/** `address-book/:id`: 'new' adds an address, an id edits that one. */
export function AddressFormPage() {
  const { id = 'new' } = useParams();
  const isNew = id === 'new';
  return (
    <AccountPage title={isNew ? 'Add New Address' : 'Edit Address'}>
      {(profile) => {
        if (isNew) return <AddressForm profile={profile} address={null} />;
        const address = profile.addresses.find((candidate) => String(candidate.id) === id);
        return address ? (
          <AddressForm key={address.id} profile={profile} address={address} />
        ) : (
          <p role="alert">This address was not found in your address book.</p>
        );
      }}
    </AccountPage>
  );
}

function initialValues(profile: Profile, address: StoredAddress | null): AddressValues {
  if (address) {
    return {
      addressName: address.addressName,
      firstName: address.firstName,
      lastName: address.lastName,
      company: address.company ?? '',
      mainContact: address.mainContact,
      faxContact: address.faxContact ?? '',
      addressLine1: address.addressLine1,
      addressLine2: address.addressLine2 ?? '',
      city: address.city,
      state: address.state,
      postalCode: address.postalCode,
      country: address.country || DEFAULT_COUNTRY,
      addressType: address.addressType,
      isDefaultBilling: address.isDefaultBilling,
      isDefaultShipping: address.isDefaultShipping,
    };
  }
  // a first address becomes the default for both; later ones do not take the defaults over unasked
  const first = profile.addresses.length === 0;
  return {
    addressName: '',
    firstName: profile.firstName,
    lastName: profile.lastName,
    company: '',
    mainContact: profile.phoneNumber ?? '',
    faxContact: '',
    addressLine1: '',
    addressLine2: '',
    city: '',
    state: '',
    postalCode: '',
    country: DEFAULT_COUNTRY,
    addressType: DEFAULT_ADDRESS_TYPE,
    isDefaultBilling: first,
    isDefaultShipping: first,
  };
}

/** The values as the BFF takes them: blank optional texts as null, the stored address's `residential` kept. */
export function toAddress(values: AddressValues, address: StoredAddress | null): Address {
  const optional = (text: string) => (text.trim() === '' ? null : text.trim());
  return {
    addressName: values.addressName,
    firstName: values.firstName,
    lastName: values.lastName,
    company: optional(values.company),
    mainContact: values.mainContact,
    faxContact: optional(values.faxContact),
    addressContact: address?.addressContact ?? null,
    addressType: values.addressType,
    isDefaultShipping: values.isDefaultShipping,
    isDefaultBilling: values.isDefaultBilling,
    addressLine1: values.addressLine1,
    addressLine2: optional(values.addressLine2),
    city: values.city,
    state: values.state,
    postalCode: values.postalCode,
    country: values.country,
    residential: address?.residential ?? true,
  };
}

function AddressForm({ profile, address }: { profile: Profile; address: StoredAddress | null }) {
  const origin = useOrigin();
  const navigate = useNavigate();
  const save = useSaveAddress();
  const form = useForm<AddressValues>({
    resolver: zodResolver(addressSchema),
    defaultValues: initialValues(profile, address),
  });
  const {
    handleSubmit,
    setError,
    formState: { isSubmitting },
  } = form;

  const submit = async (values: AddressValues) => {
    try {
      await save.mutateAsync({ id: address?.id ?? null, address: toAddress(values, address) });
      await navigate(origin);
    } catch (error) {
      if (!applyServerErrors(error, setError, FIELDS)) notifyError(error);
    }
  };

  return (
    <form
      className="account-form"
      aria-label="Address"
      noValidate
      onSubmit={(event) => void handleSubmit(submit)(event)}
    >
      <AddressFieldset
        form={form}
        layout={addressBookLayout.contact}
        title={{ heading: 'Contact Information' }}
        className="account-form__group"
      />
      <AddressFieldset
        form={form}
        layout={addressBookLayout.address}
        title={{ heading: 'Address' }}
        className="account-form__group"
      />
      <div className="account-form__actions">
        <button
          type="button"
          className="button button--outline"
          onClick={() => {
            void navigate(origin);
          }}
        >
          Cancel
        </button>
        <button type="submit" className="button" disabled={isSubmitting}>
          Save
        </button>
      </div>
    </form>
  );
}
