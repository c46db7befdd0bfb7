import type { AddressLayout, Region } from '../../components/address/address-layout';
import type { BillingForm, DealerForm } from './schemas';
import { COUNTRY, US_STATES } from './states';

/**
 * The checkout's three uses of the address fieldset (spec section 5), as data: billing, shipping
 * (shown when it differs from billing) and the dealer (FFL). Their rules and messages are
 * `billingSchema` and `dealerSchema` (schemas.ts); the tests check that the fields marked
 * required here are the ones those schemas require.
 */

const STATES: readonly Region[] = US_STATES.map(([code, name]) => ({ code, name }));
const states = () => STATES;
const COUNTRIES = [COUNTRY] as const;
const STATE_PLACEHOLDER = 'Select a state';

export const billingAddressLayout: AddressLayout<BillingForm> = {
  rows: [
    { kind: 'text', name: 'email', label: 'Email', type: 'email', autoComplete: 'email', required: true },
    [
      { kind: 'text', name: 'firstName', label: 'First Name', autoComplete: 'billing given-name', required: true },
      { kind: 'text', name: 'lastName', label: 'Last Name', autoComplete: 'billing family-name', required: true },
    ],
    [
      { kind: 'text', name: 'company', label: 'Company (optional)', autoComplete: 'billing organization' },
      { kind: 'phone', name: 'mainContact', label: 'Phone (optional)', autoComplete: 'billing tel' },
    ],
    { kind: 'text', name: 'address', label: 'Address', autoComplete: 'billing street-address', required: true },
    [
      { kind: 'text', name: 'city', label: 'City', autoComplete: 'billing address-level2', required: true },
      {
        kind: 'region',
        name: 'state',
        label: 'State',
        autoComplete: 'billing address-level1',
        required: true,
        placeholder: STATE_PLACEHOLDER,
        regions: states,
      },
    ],
    [
      {
        kind: 'text',
        name: 'zip',
        label: 'Zip Code',
        autoComplete: 'billing postal-code',
        inputMode: 'numeric',
        required: true,
      },
      {
        kind: 'country',
        name: 'country',
        label: 'Country',
        autoComplete: 'billing country-name',
        countries: COUNTRIES,
      },
    ],
    { kind: 'checkbox', name: 'optInNewsletter', label: 'Sign up for our newsletter' },
  ],
};

/** Required when shown, that is when shipping differs from billing (the schema's refinement). */
export const shippingAddressLayout: AddressLayout<BillingForm> = {
  rows: [
    [
      {
        kind: 'text',
        name: 'shippingFirstName',
        label: 'Shipping First Name',
        autoComplete: 'shipping given-name',
        required: true,
      },
      {
        kind: 'text',
        name: 'shippingLastName',
        label: 'Shipping Last Name',
        autoComplete: 'shipping family-name',
        required: true,
      },
    ],
    [
      {
        kind: 'text',
        name: 'shippingCompany',
        label: 'Shipping Company (optional)',
        autoComplete: 'shipping organization',
      },
      { kind: 'phone', name: 'addressContact', label: 'Shipping Phone (optional)', autoComplete: 'shipping tel' },
    ],
    {
      kind: 'text',
      name: 'shippingAddress',
      label: 'Shipping Address',
      autoComplete: 'shipping street-address',
      required: true,
    },
    [
      {
        kind: 'text',
        name: 'shippingCity',
        label: 'Shipping City',
        autoComplete: 'shipping address-level2',
        required: true,
      },
      {
        kind: 'region',
        name: 'shippingState',
        label: 'Shipping State',
        autoComplete: 'shipping address-level1',
        required: true,
        placeholder: STATE_PLACEHOLDER,
        regions: states,
      },
    ],
    [
      {
        kind: 'text',
        name: 'shippingZip',
        label: 'Shipping Zip Code',
        autoComplete: 'shipping postal-code',
        inputMode: 'numeric',
        required: true,
      },
      {
        kind: 'country',
        name: 'shippingCountry',
        label: 'Shipping Country',
        autoComplete: 'shipping country-name',
        countries: COUNTRIES,
      },
    ],
  ],
};

/** The dealer's address is not the shopper's: `off` keeps the browser from filling it in with theirs. */
export const dealerAddressLayout: AddressLayout<DealerForm> = {
  rows: [
    { kind: 'text', name: 'dealerName', label: 'Dealer Name', autoComplete: 'off', required: true },
    { kind: 'text', name: 'dealerAddress', label: 'Dealer Address', autoComplete: 'off', required: true },
    [
      {
        kind: 'text',
        name: 'dealerEmail',
        label: 'Dealer Email',
        type: 'email',
        autoComplete: 'off',
        required: true,
      },
      { kind: 'phone', name: 'dealerPhone', label: 'Dealer Phone', autoComplete: 'off', required: true },
    ],
    [
      { kind: 'text', name: 'dealerCity', label: 'Dealer City', autoComplete: 'off', required: true },
      {
        kind: 'region',
        name: 'dealerState',
        label: 'Dealer State',
        autoComplete: 'off',
        required: true,
        placeholder: STATE_PLACEHOLDER,
        regions: states,
      },
    ],
    [
      {
        kind: 'text',
        name: 'dealerZip',
        label: 'Dealer Zip Code',
        autoComplete: 'off',
        inputMode: 'numeric',
        required: true,
      },
      { kind: 'country', name: 'dealerCountry', label: 'Dealer Country', autoComplete: 'off', countries: COUNTRIES },
    ],
  ],
};
