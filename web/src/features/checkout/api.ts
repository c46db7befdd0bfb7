import { queryOptions } from '@tanstack/react-query';
import type { Cart, CheckoutForm, OrderPlaced } from '../../api/types';
import { api, unwrap } from '../../lib/api';

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

export function computeCart(body: CheckoutForm): Promise<Cart> {
  return unwrap(api.POST('/api/cart/compute', { body }));
}

export function placeOrder(body: CheckoutForm, idempotencyKey: string): Promise<OrderPlaced> {
  return unwrap(api.POST('/api/checkout', { body, params: { header: { 'Idempotency-Key': idempotencyKey } } }));
}
