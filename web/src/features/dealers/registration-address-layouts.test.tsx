import { zodResolver } from '@hookform/resolvers/zod';
import { describe, expect, it } from 'vitest';
import { expectMessagesOfUse } from '../../test/address-use';
import { companyAddressLayout, locatorAddressLayout } from './registration-address-layouts';
import { dealerRegistrationSchema, emptyDealerRegistration } from './registration-schema';

/** The dealer registration's use of the address fieldset: the company's address and the locator's own. */

describe("the dealer registration's address fieldsets", () => {
  it("the company's address, and the locator's when it is not the company's: every field required", async () => {
    const names = await expectMessagesOfUse(
      {
        resolver: zodResolver(dealerRegistrationSchema),
        defaultValues: { ...emptyDealerRegistration, useThisAddressInDealerLocator: false },
        parts: [
          { layout: companyAddressLayout, title: { legend: 'Company Address' } },
          { layout: locatorAddressLayout, title: { label: 'Dealer locator address' } },
        ],
      },
      () => 'Required',
    );
    expect(names).toEqual([
      'streetAddress',
      'city',
      'state',
      'postalCode',
      'locatorStreetAddress',
      'locatorCity',
      'locatorState',
      'locatorPostalCode',
    ]);
  });
});
