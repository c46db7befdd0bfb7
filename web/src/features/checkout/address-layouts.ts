import type { AddressLayout, AddressRow, Region } from '../../components/address/address-layout';
import type { BillingForm, DealerForm } from './schemas';
import { COUNTRY, US_STATES } from './states';

/**
 * The checkout's three uses of the address fieldset (spec section 5), as data: billing, shipping
 * (shown when it differs from billing) and the dealer (FFL). Billing's and shipping's addresses
 * are the same fields, named for their section (`billing.city`, `shipping.city`), labelled with
 * its prefix ('Shipping City') and filled in from its `autocomplete` section. Their rules and
 * messages are `billingSchema` and `dealerSchema` (schemas.ts); the tests check that the fields
 * marked required here are the ones those schemas require.
 */

const STATES: readonly Region[] = US_STATES.map(([code, name]) => ({ code, name }));
const states = () => STATES;
const COUNTRIES = [COUNTRY] as const;
const STATE_PLACEHOLDER = 'Select a state';

/** A shopper's address, for `section` (billing or shipping): its rows, labels prefixed by `prefix`. */
function shopperAddressRows(section: 'billing' | 'shipping', prefix: string): AddressRow<BillingForm>[] {
  const token = (name: string) => `${section} ${name}`;
  return [
    [
      {
        kind: 'text',
        name: `${section}.firstName`,
        label: `${prefix}First Name`,
        autoComplete: token('given-name'),
        required: true,
      },
      {
        kind: 'text',
        name: `${section}.lastName`,
        label: `${prefix}Last Name`,
        autoComplete: token('family-name'),
        required: true,
      },
    ],
    [
      {
        kind: 'text',
        name: `${section}.company`,
        label: `${prefix}Company (optional)`,
        autoComplete: token('organization'),
      },
      { kind: 'phone', name: `${section}.phone`, label: `${prefix}Phone (optional)`, autoComplete: token('tel') },
    ],
    {
      kind: 'text',
      name: `${section}.street`,
      label: `${prefix}Address`,
      autoComplete: token('street-address'),
      required: true,
    },
    [
      {
        kind: 'text',
        name: `${section}.city`,
        label: `${prefix}City`,
        autoComplete: token('address-level2'),
        required: true,
      },
      {
        kind: 'region',
        name: `${section}.state`,
        label: `${prefix}State`,
        autoComplete: token('address-level1'),
        required: true,
        placeholder: STATE_PLACEHOLDER,
        regions: states,
      },
    ],
    [
      {
        kind: 'text',
        name: `${section}.zip`,
        label: `${prefix}Zip Code`,
        autoComplete: token('postal-code'),
        inputMode: 'numeric',
        required: true,
      },
      {
        kind: 'country',
        name: `${section}.country`,
        label: `${prefix}Country`,
        autoComplete: token('country-name'),
        required: true,
        countries: COUNTRIES,
      },
    ],
  ];
}

export const billingAddressLayout: AddressLayout<BillingForm> = {
  rows: [
    { kind: 'text', name: 'email', label: 'Email', type: 'email', autoComplete: 'email', required: true },
    ...shopperAddressRows('billing', ''),
    { kind: 'checkbox', name: 'optInNewsletter', label: 'Sign up for our newsletter' },
  ],
};

/** Required when shown, that is when shipping differs from billing (the schema's refinement). */
export const shippingAddressLayout: AddressLayout<BillingForm> = {
  rows: shopperAddressRows('shipping', 'Shipping '),
};

/** The dealer's address is not the shopper's: `off` keeps the browser from filling it in with theirs. */
export const dealerAddressLayout: AddressLayout<DealerForm> = {
  rows: [
    { kind: 'text', name: 'name', label: 'Dealer Name', autoComplete: 'off', required: true },
    { kind: 'text', name: 'street', label: 'Dealer Address', autoComplete: 'off', required: true },
    [
      { kind: 'text', name: 'email', label: 'Dealer Email', type: 'email', autoComplete: 'off', required: true },
      { kind: 'phone', name: 'phone', label: 'Dealer Phone', autoComplete: 'off', required: true },
    ],
    [
      { kind: 'text', name: 'city', label: 'Dealer City', autoComplete: 'off', required: true },
      {
        kind: 'region',
        name: 'state',
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
        name: 'zip',
        label: 'Dealer Zip Code',
        autoComplete: 'off',
        inputMode: 'numeric',
        required: true,
      },
      {
        kind: 'country',
        name: 'country',
        label: 'Dealer Country',
        autoComplete: 'off',
        required: true,
        countries: COUNTRIES,
      },
    ],
  ],
};
