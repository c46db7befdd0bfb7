import { queryOptions } from '@tanstack/react-query';
import type { Cart, CheckoutForm, OrderPlaced } from '../../api/types';
import { api, unwrap } from '../../lib/api';
import type { BillingForm, DealerForm } from './schemas';

/** The checkout's calls to the BFF. Card data never goes here: only the provider's one-time token. */

export const checkoutKeys = {
  all: ['checkout'] as const,
  shippingMethods: () => [...checkoutKeys.all, 'shipping-methods'] as const,
  account: () => [...checkoutKeys.all, 'account'] as const,
  order: (id: string) => ['orders', 'detail', id] as const,
};

/** Shipping methods, cheapest first (the first is the default). */
export const shippingMethodsQuery = queryOptions({
  queryKey: checkoutKeys.shippingMethods(),
  queryFn: ({ signal }) => unwrap(api.GET('/api/cart/shipping-methods', { signal })),
  staleTime: 5 * 60_000,
});

/** The signed-in shopper's profile, for the e-mail and the default addresses. */
export const accountQuery = queryOptions({
  queryKey: checkoutKeys.account(),
  queryFn: ({ signal }) => unwrap(api.GET('/api/account', { signal })),
  staleTime: 60_000,
});

export function orderQuery(id: string) {
  return queryOptions({
    queryKey: checkoutKeys.order(id),
    queryFn: ({ signal }) => unwrap(api.GET('/api/orders/{id}', { params: { path: { id } }, signal })),
    staleTime: 60_000,
    retry: false,
  });
}

/**
 * The forms in the BFF's checkout shape (it joins the names and converts states itself). The
 * shipping fields are copied from billing only when shipping is the same as billing and the cart
 * is not all FFL (spec §5): an all-FFL order ships to the dealer, and its own shipping fields stay.
 */
export function checkoutBody(billing: BillingForm, dealer: DealerForm | null, allFfl: boolean): CheckoutForm {
  const shipping =
    billing.shippingSameAsBilling && !allFfl
      ? {
          shippingFirstName: billing.firstName,
          shippingLastName: billing.lastName,
          shippingCompany: billing.company,
          addressContact: billing.mainContact,
          shippingAddress: billing.address,
          shippingCity: billing.city,
          shippingState: billing.state,
          shippingZip: billing.zip,
        }
      : {};
  return {
    ...billing,
    ...shipping,
    shippingMethodId: billing.shippingMethodId,
    dealerInfo: dealer,
  };
}

export function computeCart(body: CheckoutForm): Promise<Cart> {
  return unwrap(api.POST('/api/cart/compute', { body }));
}

export function placeOrder(body: CheckoutForm, idempotencyKey: string): Promise<OrderPlaced> {
  return unwrap(api.POST('/api/checkout', { body, params: { header: { 'Idempotency-Key': idempotencyKey } } }));
}
