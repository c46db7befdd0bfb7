import type { QueryClient } from '@tanstack/react-query';
import { cartQuery } from '../../features/cart';
import { CheckoutPage, shippingMethodsQuery } from '../../features/checkout';
import { sessionQuery } from '../../features/session';

/** The cart (fresh enough to decide the empty-cart redirect), the session and the shipping methods. */
export function loader(queryClient: QueryClient) {
  return async () => {
    await Promise.all([
      queryClient.query(cartQuery).catch(() => undefined),
      queryClient.query(sessionQuery).catch(() => undefined),
      queryClient.query(shippingMethodsQuery).catch(() => undefined),
    ]);
    return null;
  };
}

export function Component() {
  return <CheckoutPage />;
}
