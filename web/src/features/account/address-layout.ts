import type { AddressLayout } from '../../components/address/address-layout';
import { COUNTRIES, regionsOf } from './regions';
import type { AddressValues } from './schemas';

/**
 * The address book's use of the address fieldset (spec "Address form", titled Contact Information
 * / Address): its two groups as data. The rules and messages are `addressSchema` (schemas.ts);
 * the tests check that the fields marked required here are the ones it requires. The state list
 * follows the country (free text for a country without a list), and changing the country empties
 * the state.
 */
export const addressBookLayout: { contact: AddressLayout<AddressValues>; address: AddressLayout<AddressValues> } = {
  contact: {
    rows: [
      { kind: 'text', name: 'addressName', label: 'Address Name', required: true },
      [
        { kind: 'text', name: 'firstName', label: 'First Name', autoComplete: 'given-name', required: true },
        { kind: 'text', name: 'lastName', label: 'Last Name', autoComplete: 'family-name', required: true },
      ],
      { kind: 'text', name: 'company', label: 'Company', autoComplete: 'organization' },
      [
        { kind: 'phone', name: 'mainContact', label: 'Phone', autoComplete: 'tel', required: true },
        { kind: 'phone', name: 'faxContact', label: 'Fax', autoComplete: 'off' },
      ],
    ],
  },
  address: {
    rows: [
      { kind: 'text', name: 'addressLine1', label: 'Street Address', autoComplete: 'address-line1', required: true },
      { kind: 'text', name: 'addressLine2', label: 'Street Address Line 2', autoComplete: 'address-line2' },
      [
        { kind: 'text', name: 'city', label: 'City', autoComplete: 'address-level2', required: true },
        {
          kind: 'region',
          name: 'state',
          label: 'State',
          autoComplete: 'address-level1',
          required: true,
          placeholder: 'Select a state or province',
          regions: regionsOf,
          countryField: 'country',
        },
      ],
      [
        { kind: 'text', name: 'postalCode', label: 'Zip', autoComplete: 'postal-code', required: true },
        {
          kind: 'country',
          name: 'country',
          label: 'Country',
          autoComplete: 'country-name',
          required: true,
          countries: COUNTRIES,
          clears: 'state',
        },
      ],
      { kind: 'checkbox', name: 'isDefaultBilling', label: 'Use as my default billing address' },
      { kind: 'checkbox', name: 'isDefaultShipping', label: 'Use as my default shipping address' },
    ],
  },
};
