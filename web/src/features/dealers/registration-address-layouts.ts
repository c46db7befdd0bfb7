import type { AddressLayout, Region } from '../../components/address/address-layout';
import { US_STATES } from '../../lib/us-states';
import { sanitizeZip } from './locator-search';
import type { DealerRegistrationValues } from './registration-schema';

/**
 * The dealer registration's use of the address fieldset (spec "Dealer registration"): the
 * company's address, and the dealer locator's own address (asked only when listed without 'use
 * this address'; not the company's, so not filled in by the browser). The rules and messages
 * are `dealerRegistrationSchema`; the tests check that the fields marked required here are the
 * ones it requires. A postal code keeps digits only (at most five), typed or pasted, like the
 * locator's search.
 */

const STATES: readonly Region[] = US_STATES.map(([code, name]) => ({ code, name }));
const states = () => STATES;
/** Only the United States is offered (spec). */
const COUNTRIES = ['United States'] as const;

export const companyAddressLayout: AddressLayout<DealerRegistrationValues> = {
  rows: [
    { kind: 'text', name: 'streetAddress', label: 'Street Address', autoComplete: 'street-address', required: true },
    [
      { kind: 'text', name: 'city', label: 'City', autoComplete: 'address-level2', required: true },
      {
        kind: 'region',
        name: 'state',
        label: 'State',
        autoComplete: 'address-level1',
        required: true,
        placeholder: 'Select a state',
        regions: states,
      },
    ],
    [
      {
        kind: 'text',
        name: 'postalCode',
        label: 'Postal Code',
        autoComplete: 'postal-code',
        inputMode: 'numeric',
        required: true,
        keep: sanitizeZip,
      },
      {
        kind: 'country',
        name: 'country',
        label: 'Country',
        autoComplete: 'country-name',
        required: true,
        countries: COUNTRIES,
      },
    ],
  ],
};

export const locatorAddressLayout: AddressLayout<DealerRegistrationValues> = {
  rows: [
    { kind: 'text', name: 'locatorStreetAddress', label: 'Locator Street Address', required: true },
    [
      { kind: 'text', name: 'locatorCity', label: 'Locator City', required: true },
      {
        kind: 'region',
        name: 'locatorState',
        label: 'Locator State',
        required: true,
        placeholder: 'Select a state',
        regions: states,
      },
    ],
    [
      {
        kind: 'text',
        name: 'locatorPostalCode',
        label: 'Locator Postal Code',
        inputMode: 'numeric',
        required: true,
        keep: sanitizeZip,
      },
      { kind: 'country', name: 'locatorCountry', label: 'Locator Country', required: true, countries: COUNTRIES },
    ],
  ],
};
