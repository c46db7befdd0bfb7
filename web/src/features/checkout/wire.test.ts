import { describe, expect, it } from 'vitest';
import type { StoredAddress } from '../../api/types';
import { emptyBillingForm, type BillingForm, type DealerForm } from './schemas';
import { loadBillingForm, saveBillingForm } from './storage';
import { fromStoredAddress, toCheckoutForm } from './wire';

/** The form model meets the BFF's flat `CheckoutForm` here only (issue 51): the JSON is unchanged. */

const billing: BillingForm = {
  email: 'jane@example.com',
  billing: {
    firstName: 'Jane',
    lastName: 'Doe',
    company: 'Doe Supply',
    phone: '(512) 555-0100',
    street: '100 Congress Ave',
    city: 'Austin',
    state: 'TX',
    zip: '78701',
    country: 'United States',
  },
  shippingSameAsBilling: false,
  shipping: {
    firstName: 'Sam',
    lastName: 'Roe',
    company: '',
    phone: '(208) 555-0101',
    street: '418 Harrison Blvd',
    city: 'Boise',
    state: 'ID',
    zip: '83702',
    country: 'United States',
  },
  optInNewsletter: true,
  shippingMethodId: '2',
};

const dealer: DealerForm = {
  name: 'Lone Star Arms',
  street: '200 Ranch Rd',
  email: 'ffl@lonestar.example',
  phone: '(512) 555-0199',
  city: 'Dallas',
  state: 'TX',
  zip: '75201',
  country: 'United States',
};

describe('the checkout body (to the wire)', () => {
  it('is the flat CheckoutForm, field for field, with the dealer as dealerInfo', () => {
    expect(toCheckoutForm(billing, dealer, false)).toEqual({
      email: 'jane@example.com',
      firstName: 'Jane',
      lastName: 'Doe',
      company: 'Doe Supply',
      mainContact: '(512) 555-0100',
      address: '100 Congress Ave',
      city: 'Austin',
      state: 'TX',
      zip: '78701',
      country: 'United States',
      shippingFirstName: 'Sam',
      shippingLastName: 'Roe',
      shippingCompany: '',
      addressContact: '(208) 555-0101',
      shippingAddress: '418 Harrison Blvd',
      shippingCity: 'Boise',
      shippingState: 'ID',
      shippingZip: '83702',
      shippingCountry: 'United States',
      shippingSameAsBilling: false,
      optInNewsletter: true,
      shippingMethodId: '2',
      dealerInfo: {
        dealerName: 'Lone Star Arms',
        dealerAddress: '200 Ranch Rd',
        dealerEmail: 'ffl@lonestar.example',
        dealerPhone: '(512) 555-0199',
        dealerCity: 'Dallas',
        dealerState: 'TX',
        dealerZip: '75201',
        dealerCountry: 'United States',
      },
    });
    expect(toCheckoutForm(billing, null, false).dealerInfo).toBeNull();
  });

  it('copies the shipping fields from billing when shipping is the same and the cart is not all FFL', () => {
    const body = toCheckoutForm({ ...billing, shippingSameAsBilling: true }, null, false);
    expect(body).toMatchObject({
      shippingFirstName: 'Jane',
      shippingLastName: 'Doe',
      shippingCompany: 'Doe Supply',
      addressContact: '(512) 555-0100',
      shippingAddress: '100 Congress Ave',
      shippingCity: 'Austin',
      shippingState: 'TX',
      shippingZip: '78701',
      shippingSameAsBilling: true,
    });
  });

  it('leaves the shipping fields as they are when every item is FFL', () => {
    const body = toCheckoutForm({ ...billing, shippingSameAsBilling: true }, dealer, true);
    expect(body).toMatchObject({
      shippingFirstName: 'Sam',
      shippingAddress: '418 Harrison Blvd',
      shippingCity: 'Boise',
    });
  });
});

describe('a saved address (from the wire)', () => {
  const stored: StoredAddress = {
    id: 7,
    firstName: 'Jordan',
    lastName: 'Reyes',
    company: null,
    mainContact: '(208) 555-0142',
    faxContact: null,
    addressName: 'Home',
    addressContact: null,
    addressType: 10,
    isDefaultShipping: true,
    isDefaultBilling: false,
    addressLine1: '418 Harrison Blvd',
    addressLine2: 'Apt 2',
    city: 'Boise',
    state: 'Idaho',
    postalCode: '83702',
    country: 'United States',
    residential: true,
  };

  it('becomes a checkout address: the phone, the first street line, the state as its code', () => {
    expect(fromStoredAddress(stored)).toEqual({
      firstName: 'Jordan',
      lastName: 'Reyes',
      company: '',
      phone: '(208) 555-0142',
      street: '418 Harrison Blvd',
      city: 'Boise',
      state: 'ID',
      zip: '83702',
      country: 'United States',
    });
  });
});

describe('the saved forms', () => {
  it('keep each address field by field; a field of the wrong type falls back to empty', () => {
    saveBillingForm(billing);
    expect(loadBillingForm()).toEqual(billing);
    sessionStorage.setItem(
      'billingForm',
      JSON.stringify({ email: 'jane@example.com', billing: { city: 'Austin', zip: 78701 }, shipping: 'nowhere' }),
    );
    expect(loadBillingForm()).toEqual({
      ...emptyBillingForm,
      email: 'jane@example.com',
      billing: { ...emptyBillingForm.billing, city: 'Austin' },
    });
  });
});
