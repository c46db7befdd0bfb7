import { zodResolver } from '@hookform/resolvers/zod';
import { describe, expect, it } from 'vitest';
import { expectMessagesOfUse } from '../../test/address-use';
import { billingAddressLayout, dealerAddressLayout, shippingAddressLayout } from './address-layouts';
import { billingSchema, dealerSchema, emptyBillingForm, emptyDealerForm } from './schemas';

/** The checkout's three uses of the address fieldset: each required mark is a rule, with the spec's 'Required'. */

const required = () => 'Required';

describe("the checkout's address fieldsets", () => {
  it('billing: e-mail, names, address, city, state and zip required; company and phone optional', async () => {
    const names = await expectMessagesOfUse(
      {
        resolver: zodResolver(billingSchema),
        defaultValues: emptyBillingForm,
        parts: [{ layout: billingAddressLayout, title: { legend: 'Billing Address' } }],
      },
      required,
    );
    expect(names).toEqual([
      'email',
      'billing.firstName',
      'billing.lastName',
      'billing.street',
      'billing.city',
      'billing.state',
      'billing.zip',
    ]);
  });

  it('shipping, when it differs from billing: the same address rules, on the shipping fields', async () => {
    const names = await expectMessagesOfUse(
      {
        resolver: zodResolver(billingSchema),
        defaultValues: { ...emptyBillingForm, shippingSameAsBilling: false },
        parts: [{ layout: shippingAddressLayout, title: { legend: 'Shipping Address' } }],
      },
      required,
    );
    expect(names).toEqual([
      'shipping.firstName',
      'shipping.lastName',
      'shipping.street',
      'shipping.city',
      'shipping.state',
      'shipping.zip',
    ]);
  });

  it('the dealer: every field required, none filled in by the browser', async () => {
    const names = await expectMessagesOfUse(
      {
        resolver: zodResolver(dealerSchema),
        defaultValues: emptyDealerForm,
        parts: [{ layout: dealerAddressLayout, title: { legend: 'Dealer Address' } }],
      },
      required,
    );
    expect(names).toEqual(['name', 'street', 'email', 'phone', 'city', 'state', 'zip']);
  });
});
