import { zodResolver } from '@hookform/resolvers/zod';
import { describe, expect, it } from 'vitest';
import { expectMessagesOfUse } from '../../test/address-use';
import { addressBookLayout } from './address-layout';
import { DEFAULT_COUNTRY } from './regions';
import { addressSchema, type AddressValues } from './schemas';

/** The address book's use of the address fieldset: each required mark is a rule, with the spec's '<Field name> is required'. */

const empty: AddressValues = {
  addressName: '',
  firstName: '',
  lastName: '',
  company: '',
  mainContact: '',
  faxContact: '',
  addressLine1: '',
  addressLine2: '',
  city: '',
  state: '',
  postalCode: '',
  country: DEFAULT_COUNTRY,
  addressType: 10,
  isDefaultBilling: false,
  isDefaultShipping: false,
};

describe("the address book's address fieldset", () => {
  it("marks and checks the spec's required fields, each message naming its field", async () => {
    const names = await expectMessagesOfUse(
      {
        resolver: zodResolver(addressSchema),
        defaultValues: empty,
        parts: [
          { layout: addressBookLayout.contact, title: { heading: 'Contact Information' } },
          { layout: addressBookLayout.address, title: { heading: 'Address' } },
        ],
      },
      (field) => `${field.label} is required`,
    );
    expect(names).toEqual([
      'addressName',
      'firstName',
      'lastName',
      'mainContact',
      'addressLine1',
      'city',
      'state',
      'postalCode',
    ]);
  });
});
