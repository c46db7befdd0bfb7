import type { CheckoutForm, DealerForm as DealerWire, StoredAddress } from '../../api/types';
import type { BillingForm, CheckoutAddress, DealerForm } from './schemas';
import { COUNTRY, stateCode } from './states';

/**
 * The one place the checkout's form model (schemas.ts: one object per address) meets the BFF's
 * flat wire shape: `CheckoutForm` and its `dealerInfo` going out, a profile's `StoredAddress`
 * coming in. The BFF joins the names and converts the states itself.
 */

/** The billing address in the wire's billing fields. */
function billingWire(address: CheckoutAddress) {
  return {
    firstName: address.firstName,
    lastName: address.lastName,
    company: address.company,
    mainContact: address.phone,
    address: address.street,
    city: address.city,
    state: address.state,
    zip: address.zip,
    country: address.country,
  };
}

/** An address in the wire's shipping fields. */
function shippingWire(address: CheckoutAddress) {
  return {
    shippingFirstName: address.firstName,
    shippingLastName: address.lastName,
    shippingCompany: address.company,
    addressContact: address.phone,
    shippingAddress: address.street,
    shippingCity: address.city,
    shippingState: address.state,
    shippingZip: address.zip,
  };
}

export function dealerWire(dealer: DealerForm): DealerWire {
  return {
    dealerName: dealer.name,
    dealerAddress: dealer.street,
    dealerEmail: dealer.email,
    dealerPhone: dealer.phone,
    dealerCity: dealer.city,
    dealerState: dealer.state,
    dealerZip: dealer.zip,
    dealerCountry: dealer.country,
  };
}

/**
 * The forms as the BFF's `CheckoutForm`. The shipping fields are billing's when shipping is the
 * same as billing and the cart is not all FFL (spec §5): an all-FFL order ships to the dealer,
 * and its own shipping fields stay.
 */
export function toCheckoutForm(billing: BillingForm, dealer: DealerForm | null, allFfl: boolean): CheckoutForm {
  const shipsToBilling = billing.shippingSameAsBilling && !allFfl;
  return {
    email: billing.email,
    ...billingWire(billing.billing),
    ...shippingWire(shipsToBilling ? billing.billing : billing.shipping),
    shippingCountry: billing.shipping.country,
    shippingSameAsBilling: billing.shippingSameAsBilling,
    optInNewsletter: billing.optInNewsletter,
    shippingMethodId: billing.shippingMethodId,
    dealerInfo: dealer ? dealerWire(dealer) : null,
  };
}

/** A profile's saved address as a checkout address (the checkout offers the United States only). */
export function fromStoredAddress(address: StoredAddress): CheckoutAddress {
  return {
    firstName: address.firstName,
    lastName: address.lastName,
    company: address.company ?? '',
    phone: address.mainContact,
    street: address.addressLine1,
    city: address.city,
    state: stateCode(address.state),
    zip: address.postalCode,
    country: COUNTRY,
  };
}
