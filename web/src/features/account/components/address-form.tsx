import { zodResolver } from '@hookform/resolvers/zod';
import { useId } from 'react';
import { Controller, useForm, useWatch } from 'react-hook-form';
import { useLocation, useNavigate, useParams } from 'react-router';

import type { Address, Profile, StoredAddress } from '../../../api/types';
import { CheckboxField, TextField } from '../../../components/ui/field';
import { PhoneField } from '../../../components/ui/phone-field';
import { safeReturnPath } from '../../../lib/paths';
import { applyServerErrors } from '../../../lib/forms/rules';
import { notifyError } from '../../../components/notifications/store';
import { useSaveAddress } from '../queries';
import { COUNTRIES, DEFAULT_COUNTRY, regionsOf } from '../regions';
import { addressSchema, type AddressValues } from '../schemas';
import { AccountPage } from './account-page';
import { SelectField } from '../../../components/ui/select-field';

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
  const {
    register,
    handleSubmit,
    control,
    setError,
    setValue,
    formState: { errors, isSubmitting },
  } = useForm<AddressValues>({ resolver: zodResolver(addressSchema), defaultValues: initialValues(profile, address) });
  const country = useWatch({ control, name: 'country' });
  const regions = regionsOf(country);
  const countries = COUNTRIES.includes(country) ? COUNTRIES : [...COUNTRIES, country];
  const contactId = useId();
  const addressId = useId();

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
      <fieldset className="account-form__group" aria-labelledby={contactId}>
        <h2 id={contactId}>Contact Information</h2>
        <TextField label="Address Name" required error={errors.addressName?.message} {...register('addressName')} />
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
          label="Company"
          autoComplete="organization"
          error={errors.company?.message}
          {...register('company')}
        />
        <div className="form-row">
          <PhoneInput control={control} name="mainContact" label="Phone" required error={errors.mainContact?.message} />
          <PhoneInput control={control} name="faxContact" label="Fax" error={errors.faxContact?.message} />
        </div>
      </fieldset>
      <fieldset className="account-form__group" aria-labelledby={addressId}>
        <h2 id={addressId}>Address</h2>
        <TextField
          label="Street Address"
          autoComplete="address-line1"
          required
          error={errors.addressLine1?.message}
          {...register('addressLine1')}
        />
        <TextField
          label="Street Address Line 2"
          autoComplete="address-line2"
          error={errors.addressLine2?.message}
          {...register('addressLine2')}
        />
        <div className="form-row">
          <TextField
            label="City"
            autoComplete="address-level2"
            required
            error={errors.city?.message}
            {...register('city')}
          />
          {regions.length > 0 ? (
            <SelectField label="State" required error={errors.state?.message} {...register('state')}>
              <option value="">Select a state or province</option>
              {regions.map((region) => (
                <option key={region.code} value={region.code}>
                  {region.name}
                </option>
              ))}
            </SelectField>
          ) : (
            <TextField
              label="State"
              autoComplete="address-level1"
              required
              error={errors.state?.message}
              {...register('state')}
            />
          )}
        </div>
        <div className="form-row">
          <TextField
            label="Zip"
            autoComplete="postal-code"
            required
            error={errors.postalCode?.message}
            {...register('postalCode')}
          />
          <SelectField
            label="Country"
            required
            error={errors.country?.message}
            {...register('country', {
              onChange: () => {
                setValue('state', '');
              },
            })}
          >
            {countries.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </SelectField>
        </div>
        <CheckboxField label="Use as my default billing address" {...register('isDefaultBilling')} />
        <CheckboxField label="Use as my default shipping address" {...register('isDefaultShipping')} />
      </fieldset>
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

interface PhoneInputProps {
  control: ReturnType<typeof useForm<AddressValues>>['control'];
  name: 'mainContact' | 'faxContact';
  label: string;
  required?: boolean;
  error: string | undefined;
}

/** A phone field formatted US style as it is typed. */
function PhoneInput({ control, name, label, required, error }: PhoneInputProps) {
  return (
    <Controller
      control={control}
      name={name}
      render={({ field }) => (
        <PhoneField
          label={label}
          autoComplete={name === 'mainContact' ? 'tel' : 'off'}
          required={required}
          error={error}
          ref={field.ref}
          name={field.name}
          value={field.value}
          onBlur={field.onBlur}
          onChange={field.onChange}
        />
      )}
    />
  );
}
